// MemTableList: the immutable memtables waiting for the flush thread, oldest
// first, each with the id it had while it was the DB's active memtable (ids
// grow by one per memtable, so a caller can wait for an id to leave the list).
//
// Ownership: the list holds one reference on each memtable: Add takes over
// the caller's, RemoveOldest and UnrefAll drop them.
// Thread safety: none of its own. The DB guards its list with the DB mutex;
// a reader pins the memtables it needs (RefNewestFirst) and then reads them
// without the lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace shale {

class MemTable;

class MemTableList {
 public:
  MemTableList() = default;
  MemTableList(const MemTableList&) = delete;
  MemTableList& operator=(const MemTableList&) = delete;
  // REQUIRES: empty (UnrefAll first).
  ~MemTableList();

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }

  // Appends mem as the newest, taking over the caller's reference.
  // REQUIRES: id is above every id in the list.
  void Add(MemTable* mem, uint64_t id);
  // REQUIRES: !empty().
  MemTable* oldest() const;
  uint64_t oldest_id() const;
  // The memtable after the oldest, or nullptr if the oldest is the only one.
  MemTable* second_oldest() const;
  // Removes the oldest and drops the list's reference on it.
  // REQUIRES: !empty().
  void RemoveOldest();
  // Appends every memtable to *out, newest first, taking a reference on each
  // for the caller.
  void RefNewestFirst(std::vector<MemTable*>* out) const;
  // Drops the list's reference on every memtable; the list is then empty.
  void UnrefAll();

 private:
  struct Entry {
    MemTable* mem;
    uint64_t id;
  };
  std::deque<Entry> entries_;
};

}  // namespace shale
