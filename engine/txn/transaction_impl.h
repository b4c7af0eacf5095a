// TransactionImpl: the handle of one transaction (shale::Transaction). The
// work is TransactionDBImpl's; this class checks states and keeps the
// transaction's own writes for read-your-own-writes.
//
// Thread safety: one thread at a time (the Transaction contract).
#pragma once

#include <memory>
#include <string>

#include "shale/transaction_db.h"
#include "txn/transaction_db_impl.h"

namespace shale {

class TransactionImpl final : public Transaction {
 public:
  // owned_by_db: a recovered or adopted transaction (destroying it never
  // hands it back to the DB).
  TransactionImpl(TransactionDBImpl* db, std::shared_ptr<TxnState> state, bool owned_by_db);
  // A started transaction is rolled back; a prepared one is adopted by the
  // DB (it stays prepared until committed or rolled back, or the DB closes).
  ~TransactionImpl() override;

  Status SetName(const std::string& name) override;
  const std::string& GetName() const override { return state_->name; }
  uint64_t GetId() const override { return state_->id; }
  State GetState() const override { return state_->state; }
  uint64_t GetCommitSequence() const override { return state_->commit_sequence; }
  uint64_t GetLogSequence() const override { return state_->log_sequence; }
  Status Put(const Slice& key, const Slice& value) override;
  Status Delete(const Slice& key) override;
  Status Get(const ReadOptions& options, const Slice& key, std::string* value) override;
  Status GetForUpdate(const ReadOptions& options, const Slice& key, std::string* value) override;
  Status Prepare() override;
  Status Commit() override;
  Status Rollback() override;

 private:
  [[nodiscard]] Status CheckStarted(const char* op) const;
  // Locks key and records the write (value nullopt: a delete).
  [[nodiscard]] Status RecordWrite(const Slice& key, const std::optional<std::string>& value);

  TransactionDBImpl* const db_;
  const std::shared_ptr<TxnState> state_;
  const bool owned_by_db_;
};

}  // namespace shale
