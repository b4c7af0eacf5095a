// SimDisk's injected media faults: bit flips in durable data, sticky
// unreadable sectors, and the list of durable files injectors pick from.
// The rules are stated in sim/disk/sim_disk.h ("Injected media faults").
#include <algorithm>

#include "sim/disk/disk_state.h"
#include "sim/disk/sim_disk.h"

namespace shale::sim {

using disk_internal::DiskState;
using disk_internal::Inode;

namespace {

// True if the sector has an unsynced write (its page is dirty).
bool SectorPending(const Inode& inode, uint64_t sector) {
  return std::any_of(
      inode.pending.begin(), inode.pending.end(),
      [sector](const disk_internal::PendingSector& p) { return p.sector == sector; });
}

}  // namespace

Status SimDisk::CorruptDurable(const std::string& path, uint64_t byte_offset, int bit) {
  const std::string p = DiskState::Normalize(path);
  const disk_internal::Entry* e = state_->FindDurable(p);
  if (e == nullptr || e->is_dir) return Status::NotFound(p);
  if (bit < 0 || bit > 7) return Status::InvalidArgument("CorruptDurable: bit not in 0..7");
  Inode& inode = state_->inodes.at(e->inode);
  if (byte_offset >= inode.durable.size()) {
    return Status::InvalidArgument("CorruptDurable: offset past the durable end", p);
  }
  const char mask = static_cast<char>(1u << bit);
  const char before = inode.durable[byte_offset];
  inode.durable[byte_offset] = static_cast<char>(before ^ mask);
  // A clean page is re-read from the media: the page cache sees the flip.
  const bool clean = !SectorPending(inode, byte_offset / kSectorBytes) &&
                     byte_offset < inode.visible.size() && inode.visible[byte_offset] == before;
  if (clean) inode.visible[byte_offset] = static_cast<char>(before ^ mask);
  DiskContext* ctx = state_->context;
  ctx->Fold(DiskState::HashString("disk.corrupt_durable"));
  ctx->Fold(DiskState::HashString(p));
  ctx->Fold(byte_offset << 3 | static_cast<uint64_t>(bit));
  return Status::OK();
}

Status SimDisk::MarkSectorUnreadable(const std::string& path, uint64_t sector) {
  const std::string p = DiskState::Normalize(path);
  uint64_t id = 0;
  Inode* inode = state_->VisibleFile(p, &id);
  if (inode == nullptr) return Status::NotFound(p);
  inode->unreadable.insert(sector);
  DiskContext* ctx = state_->context;
  ctx->Fold(DiskState::HashString("disk.mark_unreadable"));
  ctx->Fold(DiskState::HashString(p));
  ctx->Fold(sector);
  return Status::OK();
}

std::vector<SimDisk::DurableFile> SimDisk::DurableFiles() const {
  std::vector<DurableFile> files;
  for (const auto& [dir, record] : state_->dirs) {
    if (!state_->DirDurable(dir)) continue;
    for (const auto& [name, entry] : record.durable) {
      if (entry.is_dir) continue;
      files.push_back({DiskState::Join(dir, name), state_->inodes.at(entry.inode).durable.size()});
    }
  }
  std::sort(files.begin(), files.end(),
            [](const DurableFile& a, const DurableFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace shale::sim
