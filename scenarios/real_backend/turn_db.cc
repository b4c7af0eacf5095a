#include "scenarios/real_backend/turn_db.h"

#include <cassert>
#include <utility>

namespace shale::scenario {

namespace {

// Gives the turn up for one engine call.
class Released {
 public:
  explicit Released(ClientTurn* turn) : turn_(turn) { turn_->Give(); }
  ~Released() { turn_->Take(); }
  Released(const Released&) = delete;
  Released& operator=(const Released&) = delete;

 private:
  ClientTurn* const turn_;
};

// Calls fn with the turn given up; returns what it returns.
template <typename Fn>
auto Unturned(ClientTurn* turn, const Fn& fn) {
  Released released(turn);
  return fn();
}

class TurnTakingIterator final : public Iterator {
 public:
  TurnTakingIterator(Iterator* target, ClientTurn* turn) : target_(target), turn_(turn) {}
  ~TurnTakingIterator() override {
    Released released(turn_);
    target_.reset();
  }

  bool Valid() const override { return target_->Valid(); }
  void SeekToFirst() override {
    Unturned(turn_, [this] { target_->SeekToFirst(); });
  }
  void SeekToLast() override {
    Unturned(turn_, [this] { target_->SeekToLast(); });
  }
  void Seek(const Slice& t) override {
    Unturned(turn_, [&] { target_->Seek(t); });
  }
  void SeekForPrev(const Slice& t) override {
    Unturned(turn_, [&] { target_->SeekForPrev(t); });
  }
  void Next() override {
    Unturned(turn_, [this] { target_->Next(); });
  }
  void Prev() override {
    Unturned(turn_, [this] { target_->Prev(); });
  }
  Slice key() const override { return target_->key(); }
  Slice value() const override { return target_->value(); }
  Status status() const override { return target_->status(); }

 private:
  std::unique_ptr<Iterator> target_;
  ClientTurn* const turn_;
};

class TurnTakingTransaction final : public Transaction {
 public:
  TurnTakingTransaction(std::unique_ptr<Transaction> target, ClientTurn* turn)
      : target_(std::move(target)), turn_(turn) {}
  ~TurnTakingTransaction() override {
    Released released(turn_);
    target_.reset();
  }

  Status SetName(const std::string& name) override {
    return Unturned(turn_, [&] { return target_->SetName(name); });
  }
  const std::string& GetName() const override { return target_->GetName(); }
  uint64_t GetId() const override { return target_->GetId(); }
  State GetState() const override { return target_->GetState(); }
  uint64_t GetCommitSequence() const override { return target_->GetCommitSequence(); }
  uint64_t GetLogSequence() const override { return target_->GetLogSequence(); }
  Status Put(const Slice& key, const Slice& value) override {
    return Unturned(turn_, [&] { return target_->Put(key, value); });
  }
  Status Delete(const Slice& key) override {
    return Unturned(turn_, [&] { return target_->Delete(key); });
  }
  Status Get(const ReadOptions& options, const Slice& key, std::string* value) override {
    return Unturned(turn_, [&] { return target_->Get(options, key, value); });
  }
  Status GetForUpdate(const ReadOptions& options, const Slice& key, std::string* value) override {
    return Unturned(turn_, [&] { return target_->GetForUpdate(options, key, value); });
  }
  Status Prepare() override {
    return Unturned(turn_, [this] { return target_->Prepare(); });
  }
  Status Commit() override {
    return Unturned(turn_, [this] { return target_->Commit(); });
  }
  Status Rollback() override {
    return Unturned(turn_, [this] { return target_->Rollback(); });
  }

 private:
  std::unique_ptr<Transaction> target_;
  ClientTurn* const turn_;
};

}  // namespace

Status TurnTakingDB::Close() {
  return Unturned(turn_, [this] { return db_->Close(); });
}

Status TurnTakingDB::Write(const WriteOptions& options, WriteBatch* batch) {
  return Unturned(turn_, [&] { return db_->Write(options, batch); });
}

Status TurnTakingDB::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  return Unturned(turn_, [&] { return db_->Get(options, key, value); });
}

Iterator* TurnTakingDB::NewIterator(const ReadOptions& options) {
  Iterator* it = Unturned(turn_, [&] { return db_->NewIterator(options); });
  return new TurnTakingIterator(it, turn_);
}

const Snapshot* TurnTakingDB::GetSnapshot() {
  return Unturned(turn_, [this] { return db_->GetSnapshot(); });
}

void TurnTakingDB::ReleaseSnapshot(const Snapshot* snapshot) {
  Unturned(turn_, [&] { db_->ReleaseSnapshot(snapshot); });
}

Status TurnTakingDB::Flush(const FlushOptions& options) {
  return Unturned(turn_, [&] { return db_->Flush(options); });
}

Status TurnTakingDB::CompactRange(const CompactRangeOptions& options, const Slice* begin,
                                  const Slice* end) {
  return Unturned(turn_, [&] { return db_->CompactRange(options, begin, end); });
}

Status TurnTakingDB::SyncWAL() {
  return Unturned(turn_, [this] { return db_->SyncWAL(); });
}

Status TurnTakingDB::FlushWAL(bool sync) {
  return Unturned(turn_, [this, sync] { return db_->FlushWAL(sync); });
}

bool TurnTakingDB::GetProperty(const Slice& property, std::string* value) {
  return Unturned(turn_, [&] { return db_->GetProperty(property, value); });
}

DBStats TurnTakingDB::GetStats() {
  return Unturned(turn_, [this] { return db_->GetStats(); });
}

uint64_t TurnTakingDB::GetLatestSequenceNumber() const { return db_->GetLatestSequenceNumber(); }

std::unique_ptr<Transaction> TurnTakingDB::BeginTransaction(const WriteOptions& write_options,
                                                            const TransactionOptions& txn_options) {
  assert(txn_db_ != nullptr);
  std::unique_ptr<Transaction> txn =
      Unturned(turn_, [&] { return txn_db_->BeginTransaction(write_options, txn_options); });
  return std::make_unique<TurnTakingTransaction>(std::move(txn), turn_);
}

Transaction* TurnTakingDB::GetTransactionByName(const std::string& name) {
  assert(txn_db_ != nullptr);
  return Unturned(turn_, [&] { return txn_db_->GetTransactionByName(name); });
}

std::vector<std::string> TurnTakingDB::GetPreparedTransactionNames() {
  assert(txn_db_ != nullptr);
  return Unturned(turn_, [this] { return txn_db_->GetPreparedTransactionNames(); });
}

}  // namespace shale::scenario
