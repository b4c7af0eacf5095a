// Property: the whole DB against a std::map model, under
// random sequences of put / delete / batch / get / iterate both ways /
// snapshot reads / flush / compact / close-and-reopen, with tiny buffers and
// file sizes so that flushes and multi-level compactions really happen.
// Runs 1,000 cases and asserts that the runs reach at least 3 levels.
#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/rc_check.h"
#include "common/temp_dir.h"
#include "shale/db.h"

using namespace shale;

namespace {

using Model = std::map<std::string, std::string>;

constexpr int kCases = 1000;
constexpr int kKeySpace = 160;

struct Step {
  int kind;    // which operation (weighted, see Apply)
  int key;     // key index
  int extra;   // second key / batch size / snapshot index / direction
  int length;  // value length
};

Options TinyOptions() {
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 1024;
  o.target_file_size_base = 1024;
  o.max_bytes_for_level_base = 1024;
  o.max_bytes_for_level_multiplier = 2;
  o.level0_file_num_compaction_trigger = 2;
  o.block_size = 128;
  o.block_restart_interval = 4;
  o.block_cache = nullptr;
  return o;
}

std::string KeyOf(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%04d", i);
  return buf;
}

// A value unique to the step that wrote it, so a stale read is caught.
std::string ValueOf(size_t step, int length) {
  std::string v = "v" + std::to_string(step) + ".";
  v.resize(std::max<size_t>(v.size(), static_cast<size_t>(length)), 'x');
  return v;
}

struct Harness {
  std::string path;
  std::unique_ptr<DB> db;
  Model model;
  std::vector<std::pair<const Snapshot*, Model>> snapshots;
  int deepest_level = 0;

  void Open() {
    Status s = DB::Open(TinyOptions(), path, &db);
    RC_ASSERT(s.ok());
  }
  void ReleaseAll() {
    for (auto& [snap, m] : snapshots) db->ReleaseSnapshot(snap);
    snapshots.clear();
  }
  void Reopen() {
    ReleaseAll();
    RC_ASSERT(db->Close().ok());
    db.reset();
    Open();
  }
  void NoteLevels() {
    std::string files;
    for (int level = 0; level < 7; level++) {
      RC_ASSERT(db->GetProperty("shale.num-files-at-level" + std::to_string(level), &files));
      if (std::stoi(files) > 0) deepest_level = std::max(deepest_level, level);
    }
  }

  void CheckGet(const std::string& key, const Model& m, const Snapshot* snap) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string value;
    Status s = db->Get(ro, key, &value);
    auto it = m.find(key);
    if (it == m.end()) {
      RC_ASSERT(s.IsNotFound());
    } else {
      RC_ASSERT(s.ok());
      RC_ASSERT(value == it->second);
    }
  }

  void CheckScan(const Model& m, const Snapshot* snap, bool reverse) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::unique_ptr<Iterator> it(db->NewIterator(ro));
    std::vector<std::pair<std::string, std::string>> got;
    if (reverse) {
      for (it->SeekToLast(); it->Valid(); it->Prev())
        got.emplace_back(it->key().ToString(), it->value().ToString());
      std::reverse(got.begin(), got.end());
    } else {
      for (it->SeekToFirst(); it->Valid(); it->Next())
        got.emplace_back(it->key().ToString(), it->value().ToString());
    }
    RC_ASSERT(it->status().ok());
    const std::vector<std::pair<std::string, std::string>> want(m.begin(), m.end());
    RC_ASSERT(got == want);
  }

  // Seek (or SeekForPrev) to key, then walk a few steps, mixing directions.
  void CheckSeek(const std::string& key, bool for_prev, int walk, const Model& m) {
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    auto expect = m.end();
    if (for_prev) {
      it->SeekForPrev(key);
      auto ub = m.upper_bound(key);
      expect = ub == m.begin() ? m.end() : std::prev(ub);
    } else {
      it->Seek(key);
      expect = m.lower_bound(key);
    }
    for (int i = 0; i < 6; i++) {
      if (expect == m.end()) {
        RC_ASSERT(!it->Valid());
        break;
      }
      RC_ASSERT(it->Valid());
      RC_ASSERT(it->key().ToString() == expect->first);
      RC_ASSERT(it->value().ToString() == expect->second);
      const bool forward = ((walk >> i) & 1) != 0;
      if (forward) {
        it->Next();
        ++expect;
      } else {
        it->Prev();
        expect = expect == m.begin() ? m.end() : std::prev(expect);
      }
    }
    RC_ASSERT(it->status().ok());
  }

  void Apply(size_t index, const Step& step) {
    const std::string key = KeyOf(step.key);
    const int kind = step.kind;
    WriteOptions wo;
    wo.disable_wal = step.length % 7 == 0;
    if (kind < 30) {  // put
      const std::string value = ValueOf(index, step.length);
      RC_ASSERT(db->Put(wo, key, value).ok());
      model[key] = value;
    } else if (kind < 38) {  // delete
      RC_ASSERT(db->Delete(wo, key).ok());
      model.erase(key);
    } else if (kind < 46) {  // atomic batch of puts and deletes
      WriteBatch batch;
      for (int i = 0; i < 1 + step.extra % 6; i++) {
        const std::string k = KeyOf((step.key + i * 17) % kKeySpace);
        if ((step.extra + i) % 3 == 0) {
          batch.Delete(k);
          model.erase(k);
        } else {
          const std::string v = ValueOf(index * 8 + static_cast<size_t>(i), step.length);
          batch.Put(k, v);
          model[k] = v;
        }
      }
      RC_ASSERT(db->Write(wo, &batch).ok());
    } else if (kind < 60) {
      CheckGet(key, model, nullptr);
    } else if (kind < 64) {
      CheckScan(model, nullptr, step.extra % 2 == 0);
    } else if (kind < 72) {
      CheckSeek(key, step.extra % 2 == 0, step.extra, model);
    } else if (kind < 76) {
      if (snapshots.size() < 4) snapshots.emplace_back(db->GetSnapshot(), model);
    } else if (kind < 84) {
      if (!snapshots.empty()) {
        const auto& [snap, m] = snapshots[static_cast<size_t>(step.extra) % snapshots.size()];
        if (step.length % 4 == 0) {
          CheckScan(m, snap, step.length % 8 == 0);
        } else {
          CheckGet(key, m, snap);
        }
      }
    } else if (kind < 87) {
      if (!snapshots.empty()) {
        const size_t i = static_cast<size_t>(step.extra) % snapshots.size();
        db->ReleaseSnapshot(snapshots[i].first);
        snapshots.erase(snapshots.begin() + static_cast<long>(i));
      }
    } else if (kind < 91) {
      RC_ASSERT(db->Flush(FlushOptions()).ok());
    } else if (kind < 95) {
      std::string lo = KeyOf(std::min(step.key, step.extra % kKeySpace));
      std::string hi = KeyOf(std::max(step.key, step.extra % kKeySpace));
      Slice lo_slice(lo), hi_slice(hi);
      const bool whole = step.length % 3 == 0;
      RC_ASSERT(db->CompactRange(CompactRangeOptions(), whole ? nullptr : &lo_slice,
                                 whole ? nullptr : &hi_slice)
                    .ok());
    } else {
      Reopen();
    }
  }
};

int g_runs_reaching_three_levels = 0;
int g_runs = 0;

}  // namespace

TEST_CASE("DB matches a std::map model under random operations", "[db][property]") {
  g_runs = 0;
  g_runs_reaching_three_levels = 0;
  shale_test::CheckProperty("db model", kCases, 20261121, [] {
    const int count = *rc::gen::inRange(40, 400);
    const auto steps = *rc::gen::container<std::vector<Step>>(
        static_cast<size_t>(count),
        rc::gen::construct<Step>(rc::gen::inRange(0, 100), rc::gen::inRange(0, kKeySpace),
                                 rc::gen::inRange(0, 1 << 12), rc::gen::inRange(0, 120)));
    shale_test::TempDir dir(shale_test::TempDir::InMemoryBase());
    RC_ASSERT(dir.ok());
    Harness h;
    h.path = dir.Child("db");
    h.Open();
    for (size_t i = 0; i < steps.size(); i++) {
      h.Apply(i, steps[i]);
      if (i % 16 == 0) h.NoteLevels();
    }
    h.NoteLevels();
    h.CheckScan(h.model, nullptr, false);
    h.Reopen();
    h.CheckScan(h.model, nullptr, true);
    h.ReleaseAll();
    RC_ASSERT(h.db->Close().ok());
    g_runs++;
    if (h.deepest_level >= 3) g_runs_reaching_three_levels++;
  });
  std::cout << "db model property: " << g_runs << " runs, " << g_runs_reaching_three_levels
            << " reached >= 3 levels\n";
  INFO("runs: " << g_runs << ", reaching >= 3 levels: " << g_runs_reaching_three_levels);
  // rapidcheck also re-runs shrinks on failure; on success every case ran once.
  REQUIRE(g_runs >= kCases);
  REQUIRE(g_runs_reaching_three_levels * 4 >= g_runs);
}
