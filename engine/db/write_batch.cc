// WriteBatch and WriteBatchInternal (formats in shale/write_batch.h).
//
// Parsing is strict: an unknown tag, a truncated varstring, or a record
// count that differs from the header's is Corruption. InsertInto parses the
// whole batch once before touching the memtable, so a bad batch inserts
// nothing.
#include "shale/write_batch.h"

#include "db/dbformat.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "util/check.h"
#include "util/coding.h"

namespace shale {
namespace {

constexpr size_t kCountOffset = 8;

// Parses every record of rep; calls handler (if non-null) for each.
Status ParseRecords(const Slice& rep, WriteBatch::Handler* handler) {
  if (rep.size() < WriteBatchInternal::kHeaderBytes) {
    return Status::Corruption("write batch: shorter than its header");
  }
  const uint32_t expected = DecodeFixed32(rep.data() + kCountOffset);
  Slice input = rep;
  input.remove_prefix(WriteBatchInternal::kHeaderBytes);
  uint32_t found = 0;
  Slice key, value;
  while (!input.empty()) {
    const uint8_t tag = static_cast<uint8_t>(input[0]);
    input.remove_prefix(1);
    if (tag == kTypeValue) {
      if (!GetLengthPrefixedSlice(&input, &key) || !GetLengthPrefixedSlice(&input, &value)) {
        return Status::Corruption("write batch: truncated Put record");
      }
      if (handler != nullptr) handler->Put(key, value);
    } else if (tag == kTypeDeletion) {
      if (!GetLengthPrefixedSlice(&input, &key)) {
        return Status::Corruption("write batch: truncated Delete record");
      }
      if (handler != nullptr) handler->Delete(key);
    } else if (tag == WriteBatchInternal::kTagBeginPrepare) {
      if (found != 0) return Status::Corruption("write batch: BeginPrepare not first");
      if (handler != nullptr) handler->MarkBeginPrepare();
    } else if (tag >= WriteBatchInternal::kTagEndPrepare &&
               tag <= WriteBatchInternal::kTagRollback) {
      if (!GetLengthPrefixedSlice(&input, &key)) {
        return Status::Corruption("write batch: truncated transaction marker");
      }
      if (handler != nullptr) {
        if (tag == WriteBatchInternal::kTagEndPrepare) handler->MarkEndPrepare(key);
        if (tag == WriteBatchInternal::kTagCommit) handler->MarkCommit(key);
        if (tag == WriteBatchInternal::kTagRollback) handler->MarkRollback(key);
      }
    } else {
      return Status::Corruption("write batch: unknown record tag");
    }
    found++;
  }
  if (found != expected) return Status::Corruption("write batch: record count mismatch");
  return Status::OK();
}

// Adds each record to a memtable with consecutive sequence numbers, through
// MemTable::AddConcurrently if concurrent, else MemTable::Add.
class MemTableInserter final : public WriteBatch::Handler {
 public:
  MemTableInserter(SequenceNumber first_seq, MemTable* mem, bool concurrent)
      : seq_(first_seq), mem_(mem), concurrent_(concurrent) {}
  void Put(const Slice& key, const Slice& value) override { Add(kTypeValue, key, value); }
  void Delete(const Slice& key) override { Add(kTypeDeletion, key, Slice()); }
  // Markers take a sequence number each but put nothing in the memtable.
  void MarkBeginPrepare() override { seq_++; }
  void MarkEndPrepare(const Slice&) override { seq_++; }
  void MarkCommit(const Slice&) override { seq_++; }
  void MarkRollback(const Slice&) override { seq_++; }

 private:
  void Add(ValueType type, const Slice& key, const Slice& value) {
    if (concurrent_) {
      mem_->AddConcurrently(seq_++, type, key, value);
    } else {
      mem_->Add(seq_++, type, key, value);
    }
  }

  SequenceNumber seq_;
  MemTable* const mem_;
  const bool concurrent_;
};

}  // namespace

WriteBatch::WriteBatch() { Clear(); }

void WriteBatch::Clear() {
  rep_.clear();
  rep_.resize(WriteBatchInternal::kHeaderBytes, '\0');
}

void WriteBatch::Put(const Slice& key, const Slice& value) {
  WriteBatchInternal::SetCount(this, WriteBatchInternal::Count(this) + 1);
  // One allocation for the record, not one per field. libstdc++'s reserve
  // grows to at least twice the capacity, so a batch of many records still
  // grows geometrically.
  rep_.reserve(rep_.size() + 1 + static_cast<size_t>(VarintLength(key.size())) + key.size() +
               static_cast<size_t>(VarintLength(value.size())) + value.size());
  rep_.push_back(static_cast<char>(kTypeValue));
  PutLengthPrefixedSlice(&rep_, key);
  PutLengthPrefixedSlice(&rep_, value);
}

void WriteBatch::Delete(const Slice& key) {
  WriteBatchInternal::SetCount(this, WriteBatchInternal::Count(this) + 1);
  rep_.push_back(static_cast<char>(kTypeDeletion));
  PutLengthPrefixedSlice(&rep_, key);
}

void WriteBatch::Append(const WriteBatch& source) { WriteBatchInternal::Append(this, &source); }

uint32_t WriteBatch::Count() const { return WriteBatchInternal::Count(this); }

uint64_t WriteBatch::Sequence() const { return WriteBatchInternal::Sequence(this); }

Status WriteBatch::Iterate(Handler* handler) const {
  SHALE_CHECK(handler != nullptr);
  return ParseRecords(rep_, handler);
}

uint32_t WriteBatchInternal::Count(const WriteBatch* batch) {
  SHALE_CHECK(batch->rep_.size() >= kHeaderBytes);
  return DecodeFixed32(batch->rep_.data() + kCountOffset);
}

void WriteBatchInternal::SetCount(WriteBatch* batch, uint32_t n) {
  SHALE_CHECK(batch->rep_.size() >= kHeaderBytes);
  EncodeFixed32(batch->rep_.data() + kCountOffset, n);
}

SequenceNumber WriteBatchInternal::Sequence(const WriteBatch* batch) {
  SHALE_CHECK(batch->rep_.size() >= kHeaderBytes);
  return DecodeFixed64(batch->rep_.data());
}

void WriteBatchInternal::SetSequence(WriteBatch* batch, SequenceNumber seq) {
  SHALE_CHECK(batch->rep_.size() >= kHeaderBytes);
  EncodeFixed64(batch->rep_.data(), seq);
}

Status WriteBatchInternal::SetContents(WriteBatch* batch, const Slice& contents) {
  if (contents.size() < kHeaderBytes) {
    return Status::Corruption("write batch: shorter than its header");
  }
  batch->rep_.assign(contents.data(), contents.size());
  return Status::OK();
}

Status WriteBatchInternal::InsertInto(const WriteBatch* batch, MemTable* memtable,
                                      bool concurrent) {
  SHALE_CHECK(!concurrent || memtable->allows_concurrent_add());
  Status s = ParseRecords(batch->rep_, nullptr);  // validate all before inserting any
  if (!s.ok()) return s;
  const SequenceNumber first = Sequence(batch);
  const uint32_t count = Count(batch);
  if (count > 0 && (first > kMaxSequenceNumber || kMaxSequenceNumber - first < count - 1)) {
    return Status::Corruption("write batch: sequence numbers overflow");
  }
  MemTableInserter inserter(first, memtable, concurrent);
  s = ParseRecords(batch->rep_, &inserter);
  SHALE_CHECK(s.ok());  // the same bytes parsed cleanly above
  return s;
}

void WriteBatchInternal::MarkBeginPrepare(WriteBatch* batch) {
  SHALE_CHECK(Count(batch) == 0);
  SetCount(batch, 1);
  batch->rep_.push_back(static_cast<char>(kTagBeginPrepare));
}

void WriteBatchInternal::AppendMarker(WriteBatch* batch, uint8_t tag, const Slice& xid) {
  SHALE_CHECK(tag >= kTagEndPrepare && tag <= kTagRollback);
  SetCount(batch, Count(batch) + 1);
  batch->rep_.push_back(static_cast<char>(tag));
  PutLengthPrefixedSlice(&batch->rep_, xid);
}

void WriteBatchInternal::Append(WriteBatch* dst, const WriteBatch* src) {
  SHALE_CHECK(src->rep_.size() >= kHeaderBytes);
  SHALE_CHECK(dst->rep_.size() >= kHeaderBytes);
  SetCount(dst, Count(dst) + Count(src));
  dst->rep_.append(src->rep_, kHeaderBytes, std::string::npos);
}

}  // namespace shale
