// VersionSetFixture: a VersionSet over a fresh DB directory on the real
// POSIX Env, with small level sizes so compaction picking is easy to drive
// with synthetic files (files that picking never opens). Test-only.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>

#include "common/temp_dir.h"
#include "db/dbformat.h"
#include "shale/env.h"
#include "shale/options.h"
#include "table/table_options.h"
#include "util/mutexlock.h"
#include "version/table_cache.h"
#include "version/version_set.h"

namespace shale_test {

using shale::FileMetaData;
using shale::InternalKey;
using shale::SequenceNumber;

inline InternalKey IKey(const std::string& user_key, SequenceNumber seq = 100,
                        shale::ValueType type = shale::kTypeValue) {
  return InternalKey(user_key, seq, type);
}

class VersionSetFixture {
 public:
  VersionSetFixture() : icmp_(shale::BytewiseComparator()) {
    REQUIRE(dir_.ok());
    env_ = shale::Env::Default();
    mu_ = env_->runtime()->NewMutex();
    options_.num_levels = 4;
    options_.level0_file_num_compaction_trigger = 4;
    options_.max_bytes_for_level_base = 10000;
    options_.max_bytes_for_level_multiplier = 10;
    options_.target_file_size_base = 1000;
    options_.max_grandparent_overlap_factor = 10;
    table_options_.comparator = &icmp_;
    REQUIRE(shale::WriteNewDBManifest(env_->fs(), dir_.path(), shale::BytewiseComparator(), nullptr)
                .ok());
    REQUIRE(Reopen().ok());
  }
  ~VersionSetFixture() { Close(); }

  void Close() {
    vset_.reset();
    table_cache_.reset();
  }
  // Drops the VersionSet and recovers a new one from disk.
  shale::Status Reopen() {
    Close();
    table_cache_ =
        std::make_unique<shale::TableCache>(dir_.path(), table_options_, 100, env_, &stats_);
    vset_ = std::make_unique<shale::VersionSet>(dir_.path(), &options_, table_cache_.get(), &icmp_,
                                                env_, &stats_);
    bool save_manifest = false;
    shale::Status s = vset_->Recover(&save_manifest);
    if (s.ok()) CHECK(save_manifest);
    return s;
  }

  // Applies edit as a DB would: its files' sequences were handed out first.
  shale::Status Apply(shale::VersionEdit* edit) {
    shale::MutexLock lock(mu_.get());
    for (const auto& [level, meta] : edit->new_files()) {
      if (meta.largest_seqno > vset_->LastAllocatedSequence()) {
        vset_->SetLastAllocatedSequence(meta.largest_seqno);
      }
    }
    return vset_->LogAndApply(edit, mu_.get());
  }
  // Adds one synthetic file [smallest, largest] to level; returns its number.
  uint64_t AddFile(int level, const InternalKey& smallest, const InternalKey& largest,
                   uint64_t size_bytes = 100) {
    shale::VersionEdit edit;
    const uint64_t number = vset_->NewFileNumber();
    edit.AddFile(level, number, size_bytes, smallest, largest, 1, 100);
    REQUIRE(Apply(&edit).ok());
    return number;
  }
  std::set<uint64_t> LevelNumbers(int level) const {
    std::set<uint64_t> numbers;
    for (const FileMetaData* f : vset_->current()->files(level)) numbers.insert(f->number);
    return numbers;
  }

  TempDir dir_;
  shale::Env* env_;
  std::unique_ptr<shale::Mutex> mu_;
  shale::Options options_;
  shale::InternalKeyComparator icmp_;
  shale::TableOptions table_options_;
  shale::StatsCounters stats_;
  std::unique_ptr<shale::TableCache> table_cache_;
  std::unique_ptr<shale::VersionSet> vset_;
};

inline std::set<uint64_t> Numbers(const std::vector<FileMetaData*>& files) {
  std::set<uint64_t> numbers;
  for (const FileMetaData* f : files) numbers.insert(f->number);
  return numbers;
}

}  // namespace shale_test
