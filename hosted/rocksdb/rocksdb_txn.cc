// RocksDbTransaction: see rocksdb_txn.h.
#include "hosted/rocksdb/rocksdb_txn.h"

#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <utility>

#include "hosted/rocksdb/rocksdb_db.h"

namespace shale::hosted {

namespace {

rocksdb::Slice RocksSlice(const Slice& s) { return rocksdb::Slice(s.data(), s.size()); }

}  // namespace

RocksDbTransaction::RocksDbTransaction(rocksdb::Transaction* txn, Proven proven,
                                       std::function<uint64_t()> latest,
                                       std::function<void()> on_destroy)
    : txn_(txn),
      proven_(std::move(proven)),
      latest_(std::move(latest)),
      on_destroy_(std::move(on_destroy)),
      name_(txn->GetName()),
      id_(txn->GetID()) {}

RocksDbTransaction::~RocksDbTransaction() {
  txn_.reset();
  if (on_destroy_) on_destroy_();
}

Transaction::State RocksDbTransaction::GetState() const {
  if (rolled_back_) return State::kRolledBack;
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
  if (!rolled_back_ && txn_->GetState() == rocksdb::Transaction::STARTED) return Status::OK();
  return Status::InvalidArgument(std::string(what) + " on a transaction that is not started");
}

Status RocksDbTransaction::SetName(const std::string& name) {
  if (Status s = RequireStarted("SetName"); !s.ok()) return s;
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
  if (rolled_back_) return Status::InvalidArgument("Commit of a rolled-back transaction");
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

Status RocksDbTransaction::Rollback() {
  if (rolled_back_) return Status::InvalidArgument("Rollback of a rolled-back transaction");
  if (txn_->GetState() == rocksdb::Transaction::AWAITING_PREPARE) {
    txn_.reset();  // see the header: RocksDB's way out of a failed Prepare
    rolled_back_ = true;
    return Status::OK();
  }
  const Status s = proven_(txn_->Rollback());
  rolled_back_ = s.ok();
  return s;
}

// RocksDbDb's transactions (rocksdb_db.h); here with the wrapper they hand out.

std::unique_ptr<RocksDbTransaction> RocksDbDb::Wrap(rocksdb::Transaction* txn,
                                                    std::function<void()> on_destroy) const {
  return std::make_unique<RocksDbTransaction>(
      txn, [this](const rocksdb::Status& s) { return Proven(s); },
      [this] { return GetLatestSequenceNumber(); }, std::move(on_destroy));
}

std::unique_ptr<Transaction> RocksDbDb::BeginTransaction(const WriteOptions& write_options,
                                                         const TransactionOptions& txn_options) {
  if (write_committed_ == nullptr) return nullptr;
  rocksdb::TransactionOptions to;
  to.deadlock_detect = txn_options.deadlock_detect;
  to.lock_timeout = txn_options.lock_timeout_ms;
  rocksdb::Transaction* txn =
      write_committed_->BeginTransaction(RocksDbWriteOptions(write_options), to);
  std::unique_ptr<RocksDbTransaction> wrapped = Wrap(txn, [this, txn] { begun_.erase(txn); });
  begun_[txn] = wrapped.get();
  return wrapped;
}

Transaction* RocksDbDb::GetTransactionByName(const std::string& name) {
  if (write_committed_ == nullptr) return nullptr;
  rocksdb::Transaction* txn = write_committed_->GetTransactionByName(name);
  if (txn == nullptr) return nullptr;
  if (const auto begun = begun_.find(txn); begun != begun_.end()) return begun->second;
  std::unique_ptr<RocksDbTransaction>& recovered = recovered_[name];
  if (recovered == nullptr) recovered = Wrap(txn, nullptr);
  return recovered.get();
}

std::vector<std::string> RocksDbDb::GetPreparedTransactionNames() {
  std::vector<std::string> names;
  if (write_committed_ == nullptr) return names;
  std::vector<rocksdb::Transaction*> prepared;
  write_committed_->GetAllPreparedTransactions(&prepared);
  for (const rocksdb::Transaction* txn : prepared) names.push_back(txn->GetName());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace shale::hosted
