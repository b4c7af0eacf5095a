// RocksDbTransaction: see rocksdb_txn.h.
#include "hosted/rocksdb/rocksdb_txn.h"

#include <rocksdb/write_batch.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <utility>

#include "hosted/rocksdb/rocksdb_db.h"

namespace shale::hosted {

namespace {

rocksdb::Slice RocksSlice(const Slice& s) { return rocksdb::Slice(s.data(), s.size()); }

}  // namespace

RocksDbTransaction::RocksDbTransaction(rocksdb::Transaction* txn, Proven proven,
                                       std::function<uint64_t()> latest)
    : txn_(txn), proven_(std::move(proven)), latest_(std::move(latest)), name_(txn->GetName()) {}

Transaction::State RocksDbTransaction::GetState() const {
  switch (txn_->GetState()) {
    case rocksdb::Transaction::PREPARED:
      return State::kPrepared;
    case rocksdb::Transaction::COMMITTED:
      return State::kCommitted;
    case rocksdb::Transaction::ROLLEDBACK:
      return State::kRolledBack;
    default:
      // STARTED, and the AWAITING_* states a failed Prepare, Commit or
      // Rollback leaves behind (RocksDB refuses the next step from them).
      return State::kStarted;
  }
}

Status RocksDbTransaction::RequireStarted(const char* what) const {
  if (txn_->GetState() == rocksdb::Transaction::STARTED) return Status::OK();
  return Status::InvalidArgument(std::string(what) + " on a transaction that is not started");
}

Status RocksDbTransaction::SetName(const std::string& name) {
  const Status s = proven_(txn_->SetName(name));
  if (s.ok()) name_ = txn_->GetName();
  return s;
}

Status RocksDbTransaction::Put(const Slice& key, const Slice& value) {
  if (Status s = RequireStarted("Put"); !s.ok()) return s;
  return proven_(txn_->Put(RocksSlice(key), RocksSlice(value)));
}

Status RocksDbTransaction::Delete(const Slice& key) {
  if (Status s = RequireStarted("Delete"); !s.ok()) return s;
  return proven_(txn_->Delete(RocksSlice(key)));
}

Status RocksDbTransaction::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  if (Status s = RequireStarted("Get"); !s.ok()) return s;
  return proven_(txn_->Get(RocksDbReadOptions(options), RocksSlice(key), value));
}

Status RocksDbTransaction::GetForUpdate(const ReadOptions& options, const Slice& key,
                                        std::string* value) {
  if (Status s = RequireStarted("GetForUpdate"); !s.ok()) return s;
  return proven_(txn_->GetForUpdate(RocksDbReadOptions(options), RocksSlice(key), value));
}

Status RocksDbTransaction::Prepare() {
  if (Status s = RequireStarted("Prepare"); !s.ok()) return s;
  return proven_(txn_->Prepare());
}

Status RocksDbTransaction::Commit() {
  // Commit clears the batch: count its records first.
  const uint64_t records = txn_->GetWriteBatch()->GetWriteBatch()->Count();
  const Status s = proven_(txn_->Commit());
  if (!s.ok() || records == 0) return s;
  const uint64_t first = txn_->GetId();
  const uint64_t latest = latest_();
  if (first == 0 || first + records - 1 > latest) {
    return Status::Corruption("RocksDB committed a transaction at sequence " +
                              std::to_string(first) + " (" + std::to_string(records) +
                              " records) past its latest sequence " + std::to_string(latest));
  }
  commit_sequence_ = first;
  return s;
}

Status RocksDbTransaction::Rollback() { return proven_(txn_->Rollback()); }

}  // namespace shale::hosted
