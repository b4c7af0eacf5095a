// SimDisk crashes (process crash, power loss) and the test views
// (ReadVisible, ReadDurable). The power-loss rules are stated in
// sim/disk/sim_disk.h; every PRNG draw happens here, in a fixed order.
#include <algorithm>
#include <cassert>
#include <map>
#include <set>

#include "sim/disk/disk_state.h"
#include "sim/disk/sim_disk.h"

namespace shale::sim {

using disk_internal::DiskState;
using disk_internal::Inode;
using disk_internal::PendingSector;
using Fate = SimDisk::SurvivingSector::Fate;

namespace {

// Writes bytes at offset into data, growing it (zero-filled hole) if needed.
void Place(std::string* data, uint64_t offset, const std::string& bytes) {
  if (bytes.empty()) return;
  if (data->size() < offset + bytes.size()) data->resize(offset + bytes.size(), '\0');
  data->replace(offset, bytes.size(), bytes);
}

// Fills [begin, end) of bytes with rng bytes.
void Garble(ChoiceTape* rng, size_t begin, size_t end, std::string* bytes) {
  for (size_t i = begin; i < end; i += 8) {
    uint64_t word = rng->Next64();
    for (size_t b = 0; b < 8 && i + b < end; ++b, word >>= 8) {
      (*bytes)[i + b] = static_cast<char>(word & 0xff);
    }
  }
}

// Decides one pending sector write's fate and applies it to data.
// Returns false if it does not survive.
bool ApplyOne(ChoiceTape* rng, uint64_t survive_one_in, const PendingSector& w, std::string* data,
              SimDisk::SurvivingSector* out) {
  if (!rng->OneIn(survive_one_in)) return false;
  // Only the dirty range can be torn or garbled: bytes of the sector that
  // the unsynced writes did not touch keep their durable contents.
  const uint64_t start = w.sector * SimDisk::kSectorBytes + w.dirty_begin;
  const size_t dirty = std::min<size_t>(w.dirty_end, w.image.size()) - w.dirty_begin;
  const uint64_t roll = rng->Uniform(8);
  std::string bytes = w.image.substr(w.dirty_begin, dirty);
  if (roll < 6) {
    out->fate = Fate::kWhole;
  } else if (roll == 6) {
    out->fate = Fate::kTorn;
    bytes.resize(rng->Uniform(bytes.size()));
  } else {
    out->fate = Fate::kGarbage;
    Garble(rng, 0, bytes.size(), &bytes);
  }
  Place(data, start, bytes);
  out->sector = w.sector;
  out->applied_bytes = bytes.size();
  return true;
}

// Whether a and b hold the same bytes over the length both have.
bool AgreesWhereBothHoldBytes(const std::string& a, const std::string& b) {
  const size_t common = std::min(a.size(), b.size());
  return a.compare(0, common, b, 0, common) == 0;
}

// One trace line per name a power loss takes back (never hashed): those
// the directory shows but its durable table lacks or holds otherwise
// ("dropped"), and those it holds but the directory no longer shows
// ("restored": an unlink or rename away never made durable).
void TraceRevertedNames(DiskContext* ctx, const std::string& dir,
                        const disk_internal::Dir& record) {
  for (const auto& [name, entry] : record.visible) {
    const auto durable = record.durable.find(name);
    if (durable != record.durable.end() && durable->second.inode == entry.inode) continue;
    ctx->TraceEvent("disk: power loss dropped name " + DiskState::Join(dir, name));
  }
  for (const auto& [name, entry] : record.durable) {
    if (record.visible.count(name) != 0) continue;
    ctx->TraceEvent("disk: power loss restored name " + DiskState::Join(dir, name));
  }
}

// Every directory reverts to its durable table; records no durable name
// reaches are dropped. Parents sort before their children.
void RevertDirectories(DiskState* st) {
  std::set<std::string> reachable{""};
  for (auto it = st->dirs.begin(); it != st->dirs.end();) {
    const std::string& path = it->first;
    bool keep = path.empty();
    if (!keep) {
      const auto parts = DiskState::Split(path);
      if (reachable.count(parts.parent) != 0) {
        const auto& table = st->dirs.at(parts.parent).durable;
        const auto e = table.find(parts.name);
        keep = e != table.end() && e->second.is_dir;
      }
    }
    if (!keep) {
      it = st->dirs.erase(it);
      continue;
    }
    reachable.insert(path);
    if (st->context->tracing()) TraceRevertedNames(st->context, path, it->second);
    it->second.visible = it->second.durable;
    ++it;
  }
}

// The sorted durable names of every named inode.
std::map<uint64_t, std::vector<std::string>> NamesByInode(const DiskState& st) {
  std::map<uint64_t, std::vector<std::string>> names;
  for (const auto& [dir, record] : st.dirs) {
    for (const auto& [name, entry] : record.durable) {
      if (!entry.is_dir) names[entry.inode].push_back(DiskState::Join(dir, name));
    }
  }
  for (auto& [id, list] : names) std::sort(list.begin(), list.end());
  return names;
}

// How many of the uncommitted journal records a power loss keeps: none (1
// in 4), all (1 in 4), or a uniform cut. No draw if there are none.
size_t DrawJournalKept(ChoiceTape* rng, size_t uncommitted) {
  if (uncommitted == 0) return 0;
  const uint64_t roll = rng->Uniform(4);
  if (roll == 0) return 0;
  if (roll == 1) return uncommitted;
  return rng->Uniform(uncommitted + 1);
}

// What a power loss did to one file's unsynced sectors, for the trace.
struct SectorFates {
  uint64_t inode = 0;
  size_t pending = 0;
  size_t kept = 0;  // whole, torn or garbage
  size_t torn = 0;
  size_t garbage = 0;
};

// One trace line per file that had unsynced sectors (never hashed).
void TraceFates(DiskContext* ctx, const std::vector<SectorFates>& fates,
                const std::map<uint64_t, std::vector<std::string>>& names, size_t journal_kept,
                size_t journal_uncommitted) {
  ctx->TraceEvent("disk: power loss kept " + std::to_string(journal_kept) + " of " +
                  std::to_string(journal_uncommitted) + " name changes not yet durable");
  for (const SectorFates& f : fates) {
    const auto it = names.find(f.inode);
    std::string paths;
    if (it == names.end()) paths = "an unnamed file";
    for (size_t i = 0; it != names.end() && i < it->second.size(); ++i) {
      paths += (i == 0 ? "" : ", ") + it->second[i];
    }
    ctx->TraceEvent("disk: power loss kept " + std::to_string(f.kept) + " of " +
                    std::to_string(f.pending) + " unsynced sectors of " + paths + " (" +
                    std::to_string(f.torn) + " torn, " + std::to_string(f.garbage) +
                    " garbage), lost " + std::to_string(f.pending - f.kept));
  }
}

}  // namespace

void SimDisk::ProcessCrash() {
  ++state_->incarnation;
  state_->locks.clear();
  for (auto& [id, inode] : state_->inodes) inode.open_handles = 0;
  state_->FreeUnreferenced();
  state_->context->Fold(DiskState::HashString("disk.process_crash"));
  state_->context->Fold(state_->inodes.size());
}

void SimDisk::PowerLoss(uint64_t survive_one_in, std::optional<size_t> journal_kept) {
  assert(survive_one_in >= 1);
  ProcessCrash();
  const size_t uncommitted = state_->journal.size();
  // Drawn only when not given (value_or would draw either way).
  const size_t kept = journal_kept.has_value()
                          ? std::min(*journal_kept, uncommitted)
                          : DrawJournalKept(state_->context->rng(), uncommitted);
  state_->CommitJournal(kept);
  state_->journal.clear();
  state_->last_power_loss_metadata = {kept, uncommitted};
  state_->context->Fold(uint64_t{kept} << 32 | uncommitted);
  RevertDirectories(state_.get());
  state_->FreeUnreferenced();
  DiskContext* ctx = state_->context;
  std::vector<uint64_t> owners;
  std::set<uint64_t> holed;
  std::vector<SectorFates> fates;
  state_->last_power_loss.clear();
  for (auto& [id, inode] : state_->inodes) {
    std::string data = inode.durable;
    if (!inode.pending.empty()) fates.push_back(SectorFates{id, inode.pending.size()});
    for (const PendingSector& w : inode.pending) {
      SurvivingSector survivor;
      if (!ApplyOne(ctx->rng(), survive_one_in, w, &data, &survivor)) continue;
      fates.back().kept++;
      fates.back().torn += survivor.fate == Fate::kTorn ? 1 : 0;
      fates.back().garbage += survivor.fate == Fate::kGarbage ? 1 : 0;
      ctx->Fold(id);
      ctx->Fold(survivor.sector);
      ctx->Fold(static_cast<uint64_t>(survivor.fate) << 32 | survivor.applied_bytes);
      state_->last_power_loss.push_back(std::move(survivor));
      owners.push_back(id);
    }
    if (!AgreesWhereBothHoldBytes(data, inode.visible)) holed.insert(id);
    inode.pending.clear();
    inode.clean_unwritten.clear();
    inode.durable = data;
    inode.visible = std::move(data);
  }
  const auto names = NamesByInode(*state_);
  if (ctx->tracing()) TraceFates(ctx, fates, names, kept, uncommitted);
  for (size_t i = 0; i < owners.size(); ++i) {
    state_->last_power_loss[i].paths = names.at(owners[i]);
  }
  state_->last_power_loss_holes.clear();
  for (const uint64_t id : holed) {
    const auto it = names.find(id);
    if (it == names.end()) continue;
    for (const std::string& path : it->second) state_->last_power_loss_holes.push_back(path);
  }
  std::sort(state_->last_power_loss_holes.begin(), state_->last_power_loss_holes.end());
  ctx->Fold(DiskState::HashString("disk.power_loss"));
  ctx->Fold(state_->last_power_loss.size());
}

Status SimDisk::ReadVisible(const std::string& path, std::string* data) const {
  const std::string p = DiskState::Normalize(path);
  const disk_internal::Entry* e = state_->FindVisible(p);
  if (e == nullptr || e->is_dir) return Status::NotFound(p);
  *data = state_->inodes.at(e->inode).visible;
  return Status::OK();
}

Status SimDisk::ReadDurable(const std::string& path, std::string* data) const {
  const std::string p = DiskState::Normalize(path);
  const disk_internal::Entry* e = state_->FindDurable(p);
  if (e == nullptr || e->is_dir) return Status::NotFound(p);
  *data = state_->inodes.at(e->inode).durable;
  return Status::OK();
}

}  // namespace shale::sim
