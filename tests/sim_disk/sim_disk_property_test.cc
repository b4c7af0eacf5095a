// Property: random sequences of creates, writes, truncates, syncs (some
// failing), renames, deletes, directory syncs, process crashes and power
// losses on one directory, checked step by step against DiskModel: the page
// cache always equals the model, and after a power loss (the disk's reported
// journal prefix applied to the model's journal) every durable name (and
// only those) exists, keeps its synced bytes, and holds no byte that was
// never written (outside reported garbage sectors). Half the disks commit
// the journal on file syncs.
// Also: same seed and same operations => the same trace and the same files.
#include <catch2/catch.hpp>

#include "common/rc_check.h"
#include "sim_disk/disk_model.h"
#include "sim_disk/test_disk_context.h"

namespace shale_test {
namespace {

using shale::FileOptions;
using shale::Status;
using shale::sim::LatencyProfile;
using shale::sim::SimDisk;

struct Step {
  Step() = default;
  Step(int k, int x, int y, int num) : kind(k), a(x), b(y), n(num) {}
  int kind = 0, a = 0, b = 0, n = 0;
};
constexpr int kStepKinds = 14;

// How RapidCheck prints a step of a falsifying case.
[[maybe_unused]] void showValue(const Step& st, std::ostream& os) {
  os << "{kind " << st.kind << ", a " << st.a << ", b " << st.b << ", n " << st.n << "}";
}

std::string Name(int i) { return "f" + std::to_string(i); }
std::string Path(const std::string& name) { return "/db/" + name; }

class Runner {
 public:
  explicit Runner(uint64_t disk_seed) : ctx(disk_seed), disk(&ctx, LatencyProfile::NVMe()) {
    model.fsync_commits_metadata = disk_seed % 2 == 0;
    disk.set_fsync_commits_metadata(model.fsync_commits_metadata);
    Expect(disk.CreateDirIfMissing("/db"));
    Expect(disk.SyncDir("/"));
  }

  // Applies one step to disk and model; returns "" or what went wrong.
  std::string Apply(const Step& st, int index) {
    error_.clear();
    const std::string name = Name(st.a);
    const auto it = model.visible_names.find(name);
    const int id = it == model.visible_names.end() ? 0 : it->second;
    const char c = static_cast<char>('a' + index % 26);
    switch (st.kind) {
      case 0:
      case 1:
        Create(name, id);
        break;
      case 2:
      case 3:
      case 4:
        if (id != 0) Write(id, name, model.files[id].visible.size(), st.n % 1500 + 1, c);
        break;
      case 5:
        if (id != 0) {
          const uint64_t size = model.files[id].visible.size();
          Write(id, name, st.n % (size + 600), st.n % 300 + 1, c);
        }
        break;
      case 6:
        if (id != 0) Truncate(id, name, st.n);
        break;
      case 7:
      case 8:
        if (id != 0) Sync(id, name, st.b == 0);
        break;
      case 9:
        if (id != 0) Rename(name, Name(st.b));
        break;
      case 10:
        if (id != 0) {
          Expect(disk.DeleteFile(Path(name)));
          model.visible_names.erase(name);
          model.journal.push_back({ModelRecord::Kind::kUnlink, name, "", 0, 0});
        }
        break;
      case 11:
        Expect(disk.SyncDir("/db"));
        model.SyncDir();
        if (model.durable_names != model.visible_names) Fail("SyncDir left names volatile");
        break;
      case 12:
        disk.ProcessCrash();
        writers_.clear();
        break;
      default:
        PowerLoss(st.b);
        break;
    }
    if (error_.empty()) CheckVisible();
    return error_.empty() ? "" : "step " + std::to_string(index) + ": " + error_;
  }

  // The recovered files, for the determinism test.
  std::map<std::string, std::string> Files() const {
    std::map<std::string, std::string> out;
    for (const auto& [name, id] : model.visible_names) {
      REQUIRE(disk.ReadVisible(Path(name), &out[name]).ok());
    }
    return out;
  }

  TestDiskContext ctx;
  SimDisk disk;
  DiskModel model;

 private:
  void Expect(const Status& s) {
    if (!s.ok() && error_.empty()) error_ = s.ToString();
  }
  void Fail(const std::string& what) {
    if (error_.empty()) error_ = what;
  }

  shale::WritableFile* Writer(int id, const std::string& name) {
    auto& w = writers_[id];
    if (w == nullptr) Expect(disk.ReopenWritableFile(Path(name), FileOptions(), &w));
    return w.get();
  }

  void Create(const std::string& name, int id) {
    std::unique_ptr<shale::WritableFile> w;
    Expect(disk.NewWritableFile(Path(name), FileOptions(), &w));
    const int file = id != 0 ? id : model.NewFile();
    if (id != 0) {
      model.journal.push_back({ModelRecord::Kind::kTruncate, "", "", id, 0});
    } else {
      model.journal.push_back({ModelRecord::Kind::kLink, name, "", file, 0});
    }
    model.visible_names[name] = file;
    model.files[file].visible.clear();
    writers_[file] = std::move(w);
  }

  void Write(int id, const std::string& name, uint64_t offset, size_t len, char c) {
    Expect(Writer(id, name)->PositionedAppend(std::string(len, c), offset));
    ModelFile& f = model.files[id];
    if (f.visible.size() < offset + len) f.visible.resize(offset + len, '\0');
    f.visible.replace(offset, len, std::string(len, c));
    f.Observe();
  }

  void Truncate(int id, const std::string& name, int n) {
    ModelFile& f = model.files[id];
    const uint64_t size = static_cast<uint64_t>(n) % (f.visible.size() + 100);
    Expect(Writer(id, name)->Truncate(size));
    model.journal.push_back({ModelRecord::Kind::kTruncate, "", "", id, size});
    f.visible.resize(size, '\0');
    f.Observe();
  }

  void Sync(int id, const std::string& name, bool fail) {
    shale::WritableFile* w = Writer(id, name);
    const Status s = fail ? FailSync(w) : w->Sync();
    if (fail) {
      if (!s.IsIOError()) Fail("injected sync failure not reported");
      model.files[id].SyncFailed();
    } else {
      Expect(s);
      model.FileSynced(id);
    }
  }

  void Rename(const std::string& from, const std::string& to) {
    Expect(disk.RenameFile(Path(from), Path(to)));
    if (from == to) return;
    const int id = model.visible_names.at(from);
    model.journal.push_back({ModelRecord::Kind::kRename, from, to, id, 0});
    model.visible_names.erase(from);
    model.visible_names[to] = id;
  }

  void PowerLoss(int choice) {
    static constexpr uint64_t kSurvive[] = {1, 2, 8, uint64_t{1} << 60};
    disk.PowerLoss(kSurvive[choice % 4]);
    writers_.clear();
    const SimDisk::MetadataKept meta = disk.last_power_loss_metadata();
    if (meta.uncommitted != model.journal.size() || meta.kept > meta.uncommitted) {
      return Fail("the disk's journal differs from the model's");
    }
    model.Commit(meta.kept);
    model.journal.clear();
    std::map<std::string, std::set<uint64_t>> garbage;
    for (const auto& s : disk.last_power_loss()) {
      if (s.fate != SimDisk::SurvivingSector::Fate::kGarbage) continue;
      for (const auto& path : s.paths) garbage[path.substr(4)].insert(s.sector);
    }
    std::vector<std::string> names, expected;
    Expect(disk.GetChildren("/db", &names));
    for (const auto& [name, id] : model.durable_names) expected.push_back(name);
    if (names != expected) return Fail("durable names differ after power loss");
    std::map<std::string, std::string> recovered;
    for (const auto& [name, id] : model.durable_names) {
      Expect(disk.ReadVisible(Path(name), &recovered[name]));
      const std::string why =
          DiskModel::CheckRecovered(model.files.at(id), recovered[name], garbage[name]);
      if (!why.empty()) return Fail(name + ": " + why);
    }
    model.Recover(recovered);
  }

  void CheckVisible() {
    std::vector<std::string> names, expected;
    Expect(disk.GetChildren("/db", &names));
    for (const auto& [name, id] : model.visible_names) {
      expected.push_back(name);
      std::string data;
      Expect(disk.ReadVisible(Path(name), &data));
      if (data != model.files.at(id).visible) Fail(name + ": page cache differs from model");
    }
    if (names != expected) Fail("visible names differ from model");
  }

  std::map<int, std::unique_ptr<shale::WritableFile>> writers_;
  std::string error_;
};

TEST_CASE("sim_disk property: power loss keeps what must survive, invents nothing", "[sim_disk]") {
  CheckProperty("sim_disk model", 300, 20240611, [] {
    const auto steps = *rc::gen::container<std::vector<Step>>(
        rc::gen::construct<Step>(rc::gen::inRange(0, kStepKinds), rc::gen::inRange(0, 4),
                                 rc::gen::inRange(0, 4), rc::gen::inRange(0, 100000)));
    const auto seed = *rc::gen::inRange<uint64_t>(1, 1000000);
    Runner runner(seed);
    for (size_t i = 0; i < steps.size(); ++i) {
      const std::string error = runner.Apply(steps[i], static_cast<int>(i));
      RC_ASSERT(error == "");
    }
  });
}

std::vector<Step> RandomSteps(uint64_t seed, int count) {
  shale::Random rng(seed);
  std::vector<Step> steps;
  for (int i = 0; i < count; ++i) {
    steps.emplace_back(static_cast<int>(rng.Uniform(kStepKinds)), static_cast<int>(rng.Uniform(4)),
                       static_cast<int>(rng.Uniform(4)), static_cast<int>(rng.Uniform(100000)));
  }
  return steps;
}

struct RunResult {
  std::vector<uint64_t> trace;
  std::map<std::string, std::string> files;
  uint64_t delay_ns = 0;
};

RunResult RunSteps(uint64_t disk_seed, const std::vector<Step>& steps) {
  Runner runner(disk_seed);
  for (size_t i = 0; i < steps.size(); ++i) {
    REQUIRE(runner.Apply(steps[i], static_cast<int>(i)) == "");
  }
  return {runner.ctx.folds, runner.Files(), runner.ctx.delay_ns};
}

TEST_CASE("sim_disk determinism: same seed and operations, same trace and files", "[sim_disk]") {
  const auto steps = RandomSteps(99, 400);
  const RunResult a = RunSteps(5, steps);
  const RunResult b = RunSteps(5, steps);
  CHECK(a.trace == b.trace);
  CHECK(a.files == b.files);
  CHECK(a.delay_ns == b.delay_ns);
  CHECK(a.delay_ns > 0);
  // Another disk seed decides power losses differently.
  CHECK(RunSteps(6, steps).trace != a.trace);
}

}  // namespace
}  // namespace shale_test
