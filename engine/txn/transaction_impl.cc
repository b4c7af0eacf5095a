#include "txn/transaction_impl.h"

namespace shale {

namespace {
constexpr size_t kMaxNameBytes = 255;
}  // namespace

TransactionImpl::TransactionImpl(TransactionDBImpl* db, std::shared_ptr<TxnState> state,
                                 bool owned_by_db)
    : db_(db), state_(std::move(state)), owned_by_db_(owned_by_db) {}

TransactionImpl::~TransactionImpl() {
  if (owned_by_db_) return;
  if (state_->state == State::kStarted) {
    db_->UnlockAll(state_.get());
    if (!state_->name.empty()) db_->ForgetName(state_->name);
  } else if (state_->state == State::kPrepared) {
    db_->Adopt(state_);
  }
}

Status TransactionImpl::CheckStarted(const char* op) const {
  if (state_->state == State::kStarted) return Status::OK();
  return Status::InvalidArgument(op, "the transaction is no longer in the started state");
}

Status TransactionImpl::SetName(const std::string& name) {
  Status s = CheckStarted("SetName");
  if (!s.ok()) return s;
  if (!state_->name.empty()) return Status::InvalidArgument("SetName: the name is already set");
  if (name.empty() || name.size() > kMaxNameBytes) {
    return Status::InvalidArgument("SetName: a name is 1 to 255 bytes");
  }
  s = db_->RegisterName(name, this);
  if (s.ok()) state_->name = name;
  return s;
}

Status TransactionImpl::RecordWrite(const Slice& key, const std::optional<std::string>& value) {
  Status s = CheckStarted("Put/Delete");
  if (!s.ok()) return s;
  const std::string k = key.ToString();
  if (state_->writes.count(k) == 0 && state_->writes.size() >= db_->max_write_keys()) {
    return Status::Busy("transaction write limit (max_write_keys_per_transaction)");
  }
  s = db_->LockKey(state_.get(), k);
  if (!s.ok()) return s;
  if (value.has_value()) {
    state_->data.Put(key, *value);
  } else {
    state_->data.Delete(key);
  }
  state_->writes[k] = value;
  return Status::OK();
}

Status TransactionImpl::Put(const Slice& key, const Slice& value) {
  return RecordWrite(key, value.ToString());
}

Status TransactionImpl::Delete(const Slice& key) { return RecordWrite(key, std::nullopt); }

Status TransactionImpl::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  Status s = CheckStarted("Get");
  if (!s.ok()) return s;
  auto it = state_->writes.find(key.ToString());
  const bool missed = it != state_->writes.end() && !it->second.has_value() &&
                      db_->planted_bug(kBugTxnGetMissesOwnDelete);
  if (it == state_->writes.end() || missed) return db_->ReadCommitted(options, key, value);
  if (!it->second.has_value()) return Status::NotFound();
  *value = *it->second;
  return Status::OK();
}

Status TransactionImpl::GetForUpdate(const ReadOptions& options, const Slice& key,
                                     std::string* value) {
  Status s = CheckStarted("GetForUpdate");
  if (!s.ok()) return s;
  if (!db_->planted_bug(kBugGetForUpdateTakesNoLock))
    s = db_->LockKey(state_.get(), key.ToString());
  if (!s.ok()) return s;
  if (options.snapshot != nullptr && state_->writes.count(key.ToString()) == 0) {
    s = db_->ValidateSnapshot(key.ToString(), options.snapshot->GetSequenceNumber());
    if (!s.ok()) return s;
  }
  return Get(options, key, value);
}

Status TransactionImpl::Prepare() {
  Status s = CheckStarted("Prepare");
  if (!s.ok()) return s;
  if (state_->name.empty()) return Status::InvalidArgument("Prepare: the transaction has no name");
  s = db_->PrepareTxn(state_.get());
  if (s.ok()) state_->state = State::kPrepared;
  return s;
}

Status TransactionImpl::Commit() {
  if (state_->state != State::kStarted && state_->state != State::kPrepared) {
    return Status::InvalidArgument("Commit: the transaction already finished");
  }
  return db_->CommitTxn(state_.get());
}

Status TransactionImpl::Rollback() {
  if (state_->state != State::kStarted && state_->state != State::kPrepared) {
    return Status::InvalidArgument("Rollback: the transaction already finished");
  }
  return db_->RollbackTxn(state_.get());
}

}  // namespace shale
