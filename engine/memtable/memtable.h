// MemTable: the in-memory sorted buffer of recent writes, an arena-backed
// skiplist keyed by internal key (user key asc, sequence desc).
//
// Entry format in the arena:
//   varint32(internal_key_size) | internal_key | varint32(value_size) | value
//
// Ownership: reference counted; Ref()/Unref(), deleted when the count drops
// to zero. The concurrent-write mutex (if any) is borrowed, not owned.
// Thread safety: any number of concurrent readers without locks, alongside
// writers in ONE of two modes (never both at once on the same memtable):
//  * Add: one writer at a time (the DB serializes writers).
//  * AddConcurrently: any number of writers at once (RocksDB's
//    allow_concurrent_memtable_write). REQUIRES a memtable constructed with
//    a concurrent_mu; it is held only to allocate the entry and draw its
//    skiplist height, and the entry is linked lock-free.
// Switching modes needs a quiescent point (e.g. the DB's write-group leader
// handing off), so that no Add overlaps an AddConcurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "db/dbformat.h"
#include "shale/iterator.h"
#include "shale/status.h"

namespace shale {

class Mutex;
class Runtime;

struct MemTableOptions {
  // See Arena (the DB passes write_buffer_size / 8).
  size_t arena_block_bytes = 4096;
  // Enables AddConcurrently; the DB gets it from Runtime::NewMutex, so it
  // works for real threads and simulator tasks.
  Mutex* concurrent_mu = nullptr;
  // See Arena (nullptr: normal pages).
  Runtime* huge_page_advisor = nullptr;
  // A MemTableBloom of about this many bytes over the user keys, allocated
  // in the arena (0: none; Get then always searches).
  size_t bloom_bytes = 0;
};

class MemTable {
 public:
  // REQUIRES: options.concurrent_mu and options.huge_page_advisor (if
  // non-null) outlive the memtable.
  explicit MemTable(const InternalKeyComparator& comparator, const MemTableOptions& options = {});
  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Deletes this when the last reference goes.
  void Unref();

  // Bytes of memory in use (arena blocks), for the flush trigger.
  size_t ApproximateMemoryUsage() const;

  // An iterator over internal keys (both directions). key() is the internal
  // key. The caller owns it; the memtable must stay referenced meanwhile.
  Iterator* NewIterator();

  // Adds an entry. REQUIRES: external synchronization among writers; the
  // (key, seq) pair is new.
  void Add(SequenceNumber seq, ValueType type, const Slice& key, const Slice& value);

  // As Add, safe against other AddConcurrently calls and readers.
  // REQUIRES: constructed with a concurrent_mu; the caller does not hold it;
  // no Add runs concurrently; the (key, seq) pair is new and not being added
  // by another writer.
  void AddConcurrently(SequenceNumber seq, ValueType type, const Slice& key, const Slice& value);
  bool allows_concurrent_add() const { return concurrent_mu_ != nullptr; }

  // If the newest entry for key.user_key() with sequence <= key's sequence
  // is a value, sets *value and returns true with *s OK; if it is a deletion,
  // returns true with *s NotFound. Returns false if there is no such entry.
  bool Get(const LookupKey& key, std::string* value, Status* s);

  uint64_t num_entries() const { return num_entries_.load(std::memory_order_relaxed); }
  uint64_t num_deletes() const { return num_deletes_.load(std::memory_order_relaxed); }
  // Smallest sequence ever added (kMaxSequenceNumber if empty).
  SequenceNumber first_sequence() const { return first_seq_.load(std::memory_order_relaxed); }

  // The WAL that holds this memtable's data (set by the DB).
  uint64_t log_number() const { return log_number_; }
  void set_log_number(uint64_t n) { log_number_ = n; }

 private:
  struct Rep;
  ~MemTable();
  // Counts an added entry; exact under concurrent writers.
  void CountEntry(SequenceNumber seq, ValueType type);

  std::atomic<int> refs_{0};
  std::unique_ptr<Rep> rep_;
  Mutex* const concurrent_mu_;  // guards arena allocation + height draw in AddConcurrently
  std::atomic<uint64_t> num_entries_{0};
  std::atomic<uint64_t> num_deletes_{0};
  std::atomic<SequenceNumber> first_seq_{kMaxSequenceNumber};
  uint64_t log_number_ = 0;
};

}  // namespace shale
