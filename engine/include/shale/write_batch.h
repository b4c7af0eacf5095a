// WriteBatch: a group of updates applied atomically by DB::Write.
//
// Representation (also the WAL record payload; see engine/db/write_batch.cc):
//   fixed64 sequence | fixed32 count | records...
//   record := kTypeValue varstring(key) varstring(value)
//           | kTypeDeletion varstring(key)
//           | a transaction marker (engine-internal; write_batch_internal.h)
// Every record, markers included, takes one sequence number.
// After DB::Write returns OK, Sequence() is the sequence number of the
// batch's first record.
//
// Thread safety: one thread at a time; const methods may be shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "shale/slice.h"
#include "shale/status.h"

namespace shale {

class WriteBatch {
 public:
  // Called for each record by Iterate, in insertion order.
  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void Put(const Slice& key, const Slice& value) = 0;
    virtual void Delete(const Slice& key) = 0;
    // Transaction markers (only in batches the transaction layer wrote,
    // e.g. WAL records); ignored unless overridden.
    virtual void MarkBeginPrepare() {}
    virtual void MarkEndPrepare(const Slice& xid) { (void)xid; }
    virtual void MarkCommit(const Slice& xid) { (void)xid; }
    virtual void MarkRollback(const Slice& xid) { (void)xid; }
  };

  WriteBatch();
  ~WriteBatch() = default;
  WriteBatch(const WriteBatch&) = default;
  WriteBatch& operator=(const WriteBatch&) = default;

  void Put(const Slice& key, const Slice& value);
  void Delete(const Slice& key);
  void Clear();
  // Appends every record of source to this batch.
  void Append(const WriteBatch& source);

  uint32_t Count() const;
  // The sequence number DB::Write gave the first record, once it returned
  // OK: a write with a higher one is newer (a snapshot at or above it sees
  // the batch whole). 0 for a batch never written, or cleared since.
  // Unspecified after a write that failed.
  uint64_t Sequence() const;
  // Bytes of the serialized batch (its WAL payload size).
  size_t ApproximateSize() const { return rep_.size(); }
  // Calls handler for each record; Corruption if the representation is bad.
  [[nodiscard]] Status Iterate(Handler* handler) const;

 private:
  friend class WriteBatchInternal;
  std::string rep_;
};

}  // namespace shale
