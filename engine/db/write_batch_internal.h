// WriteBatchInternal: the engine's access to a WriteBatch's representation
// (see shale/write_batch.h for the format).
#pragma once

#include <cstddef>
#include <cstdint>

#include "db/dbformat.h"
#include "shale/write_batch.h"

namespace shale {

class MemTable;

class WriteBatchInternal {
 public:
  static constexpr size_t kHeaderBytes = 12;  // fixed64 sequence + fixed32 count

  // Transaction markers (written only by the transaction layer). Each takes
  // one sequence number, like a data record, and goes into no memtable:
  //   kTagBeginPrepare                 first record of a prepared section
  //   kTagEndPrepare varstring(xid)    ends it: the section belongs to xid
  //   kTagCommit varstring(xid)        xid committed (xid "" = a plain
  //                                    write's commit, WritePrepared)
  //   kTagRollback varstring(xid)      xid rolled back
  static constexpr uint8_t kTagBeginPrepare = 0x10;
  static constexpr uint8_t kTagEndPrepare = 0x11;
  static constexpr uint8_t kTagCommit = 0x12;
  static constexpr uint8_t kTagRollback = 0x13;
  // REQUIRES: batch is empty.
  static void MarkBeginPrepare(WriteBatch* batch);
  // True if batch is a prepared section (it must be a WAL record of its own).
  static bool IsPreparedSection(const WriteBatch* batch) {
    return batch->rep_.size() > kHeaderBytes &&
           static_cast<uint8_t>(batch->rep_[kHeaderBytes]) == kTagBeginPrepare;
  }
  // REQUIRES: tag is kTagEndPrepare, kTagCommit or kTagRollback.
  static void AppendMarker(WriteBatch* batch, uint8_t tag, const Slice& xid);

  static uint32_t Count(const WriteBatch* batch);
  static void SetCount(WriteBatch* batch, uint32_t n);
  // The sequence number of the first record.
  static SequenceNumber Sequence(const WriteBatch* batch);
  static void SetSequence(WriteBatch* batch, SequenceNumber seq);

  static Slice Contents(const WriteBatch* batch) { return Slice(batch->rep_); }
  static size_t ByteSize(const WriteBatch* batch) { return batch->rep_.size(); }
  // Replaces batch with contents (e.g. a WAL record). Corruption if contents
  // is shorter than a header; the records are checked by Iterate.
  [[nodiscard]] static Status SetContents(WriteBatch* batch, const Slice& contents);

  // Inserts every record into memtable, numbering them Sequence(batch),
  // Sequence(batch)+1, ... Corruption if the batch is malformed (nothing is
  // inserted then: the batch is validated first).
  // concurrent=false: uses MemTable::Add (REQUIRES: the only writer).
  // concurrent=true: uses MemTable::AddConcurrently, so several batches with
  // disjoint sequence ranges may be inserted at once from different threads.
  // REQUIRES then: memtable was constructed with a concurrent mutex; no
  // non-concurrent insert runs at the same time.
  [[nodiscard]] static Status InsertInto(const WriteBatch* batch, MemTable* memtable,
                                         bool concurrent = false);

  // Appends src's records to dst (dst's sequence is kept).
  static void Append(WriteBatch* dst, const WriteBatch* src);
};

}  // namespace shale
