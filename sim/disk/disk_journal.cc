// DiskState's metadata journal: the uncommitted name and size changes, and
// how they reach the durable tables (a commit of a prefix, or a drawn prefix
// at a power loss). The model is stated in sim/disk/sim_disk.h ("Metadata").
#include <cassert>
#include <set>
#include <vector>

#include "sim/disk/disk_state.h"

namespace shale::sim::disk_internal {

namespace {

// Applies one record to the durable tables and sizes. Collects every inode
// whose durable reference it may have dropped into `touched`.
void ApplyRecord(DiskState* st, const JournalRecord& record, std::set<uint64_t>* touched) {
  for (const DirEdit& edit : record.edits) {
    const auto dir = st->dirs.find(edit.dir);
    if (dir == st->dirs.end()) continue;  // a directory record is never dropped while journaled
    auto& table = dir->second.durable;
    const auto old = table.find(edit.name);
    if (old != table.end() && !old->second.is_dir) touched->insert(old->second.inode);
    if (edit.entry.has_value()) {
      table[edit.name] = *edit.entry;
    } else if (old != table.end()) {
      table.erase(old);
    }
  }
  if (record.truncate_inode != 0) {
    const auto it = st->inodes.find(record.truncate_inode);
    if (it != st->inodes.end()) it->second.durable.resize(record.truncate_size_bytes, '\0');
  }
}

bool LinksInode(const JournalRecord& record, uint64_t id) {
  for (const DirEdit& edit : record.edits) {
    if (edit.entry.has_value() && !edit.entry->is_dir && edit.entry->inode == id) return true;
  }
  return false;
}

// One past the last record `touches` accepts; 0 if none.
template <typename Pred>
size_t EndOfLast(const std::vector<JournalRecord>& journal, Pred touches) {
  for (size_t i = journal.size(); i > 0; --i) {
    if (touches(journal[i - 1])) return i;
  }
  return 0;
}

}  // namespace

void DiskState::Journal(JournalRecord record) {
  assert(record.truncate_inode != 0 || !record.edits.empty());
  journal.push_back(std::move(record));
  if (journal.size() >= kMaxJournalRecords) CommitJournal(journal.size());
}

void DiskState::CommitJournal(size_t count) {
  assert(count <= journal.size());
  std::set<uint64_t> touched;
  for (size_t i = 0; i < count; ++i) ApplyRecord(this, journal[i], &touched);
  journal.erase(journal.begin(), journal.begin() + static_cast<ptrdiff_t>(count));
  for (uint64_t id : touched) MaybeFree(id);
}

size_t DiskState::JournalEndForDir(const std::string& dir) const {
  return EndOfLast(journal, [&dir](const JournalRecord& record) {
    for (const DirEdit& edit : record.edits) {
      if (edit.dir == dir || Join(edit.dir, edit.name) == dir) return true;
    }
    return false;
  });
}

size_t DiskState::JournalEndForInode(uint64_t id) const {
  return EndOfLast(journal, [id](const JournalRecord& record) {
    return record.truncate_inode == id || LinksInode(record, id);
  });
}

void DiskState::ForgetTruncates(uint64_t id) {
  // In place: every file sync calls this.
  std::erase_if(journal, [id](const JournalRecord& record) { return record.truncate_inode == id; });
}

bool DiskState::JournalLinks(uint64_t id) const {
  return EndOfLast(journal, [id](const JournalRecord& record) { return LinksInode(record, id); }) !=
         0;
}

}  // namespace shale::sim::disk_internal
