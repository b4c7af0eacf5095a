// RocksDbDb: see rocksdb_db.h.
#include "hosted/rocksdb/rocksdb_db.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/version.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <utility>

#include "db/write_batch_internal.h"
#include "hosted/hosted_code.h"
#include "hosted/rocksdb/rocksdb_open.h"
#include "hosted/rocksdb/rocksdb_txn.h"

namespace shale::hosted {

namespace {

rocksdb::Slice RocksSlice(const Slice& s) { return rocksdb::Slice(s.data(), s.size()); }
Slice ShaleSlice(const rocksdb::Slice& s) { return Slice(s.data(), s.size()); }

class RocksDbSnapshot final : public Snapshot {
 public:
  explicit RocksDbSnapshot(const rocksdb::Snapshot* snapshot) : snapshot(snapshot) {}
  ~RocksDbSnapshot() override = default;
  uint64_t GetSequenceNumber() const override { return snapshot->GetSequenceNumber(); }
  const rocksdb::Snapshot* const snapshot;
};

class RocksDbIterator final : public Iterator {
 public:
  explicit RocksDbIterator(rocksdb::Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(const Slice& target) override { it_->Seek(RocksSlice(target)); }
  void SeekForPrev(const Slice& target) override { it_->SeekForPrev(RocksSlice(target)); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  Slice key() const override { return ShaleSlice(it_->key()); }
  Slice value() const override { return ShaleSlice(it_->value()); }
  Status status() const override { return FromRocksDb(it_->status()); }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

// Rebuilds a Shale batch as RocksDB's (records in the same order).
class ToRocksDbBatch final : public WriteBatch::Handler {
 public:
  void Put(const Slice& key, const Slice& value) override {
    status = batch.Put(RocksSlice(key), RocksSlice(value));
  }
  void Delete(const Slice& key) override { status = batch.Delete(RocksSlice(key)); }
  rocksdb::WriteBatch batch;
  rocksdb::Status status;
};

// The sequence RocksDB wrote into a batch's header: fixed64, little-endian.
uint64_t SequenceOf(const rocksdb::WriteBatch& batch) {
  const std::string& rep = batch.Data();
  uint64_t sequence = 0;
  for (int i = 7; i >= 0; i--) sequence = sequence << 8 | static_cast<uint8_t>(rep[i]);
  return sequence;
}

// What RocksDB answers once a file writer has failed (WritableFileWriter,
// log::Writer): the error it first got is not repeated.
bool IsStickyWriterError(const std::string& text) {
  return text.find("Writer has previous error.") != std::string::npos ||
         text.find("Seen error. Skip writing buffer.") != std::string::npos;
}

// Every call but the destructor after Close: an error, as Shale's DB.
Status Closed() { return Status::InvalidArgument("the DB is closed"); }

HostingPreparation preparation;

}  // namespace

Status FromRocksDb(const rocksdb::Status& status) {
  if (status.ok()) return Status::OK();
  const std::string text = status.ToString();
  if (status.IsNotFound()) return Status::NotFound(text);
  if (status.IsCorruption()) return Status::Corruption(text);
  if (status.IsNotSupported()) return Status::NotSupported(text);
  if (status.IsInvalidArgument()) return Status::InvalidArgument(text);
  if (status.IsNoSpace()) return Status::NoSpace(text);
  if (status.IsBusy()) return Status::Busy(text);
  if (status.IsTryAgain()) return Status::TryAgain(text);
  if (status.IsAborted()) return Status::Aborted(text);
  if (status.IsShutdownInProgress()) return Status::ShutdownInProgress(text);
  if (status.IsIncomplete()) return Status::Incomplete(text);
  if (status.IsTimedOut()) return Status::TimedOut(text);
  return Status::IOError(text);
}

std::string RocksDbVersion() {
  return std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
         std::to_string(ROCKSDB_PATCH) + " (" + LoadedLibraryFile("librocksdb.so") + ")";
}

Status PrepareRocksDbHosting() {
  return preparation.Prepare([] { return PrepareHostedLibrary("librocksdb.so"); });
}

Status RocksDbDb::Open(const RocksDbOptions& options, Env* env, const std::string& path,
                       std::unique_ptr<DB>* db) {
  if (!preparation.ready()) {
    return Status::NotSupported("RocksDB hosting is not ready: call PrepareRocksDbHosting first");
  }
  std::unique_ptr<RocksDbDb> impl(new RocksDbDb());
  impl->env_ = std::make_unique<RocksDbEnv>(env, options.identity_seed);
  impl->env_->set_info_log_trace(options.info_log_trace);
  impl->env_->set_planted_bugs(options.planted_bugs);
  impl->planted_bugs_ = options.planted_bugs;
  rocksdb::Options o = options.db;
  o.env = impl->env_.get();
  o.create_if_missing = true;
  rocksdb::BlockBasedTableOptions table = options.table;
  if (options.block_cache_bytes > 0)
    table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  if (options.bloom_bits_per_key > 0) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(options.bloom_bits_per_key));
  }
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::TransactionDBOptions txn;
  txn.write_policy = options.write_prepared ? rocksdb::TxnDBWritePolicy::WRITE_PREPARED
                                            : rocksdb::TxnDBWritePolicy::WRITE_COMMITTED;
  txn.skip_concurrency_control = options.skip_concurrency_control && options.write_prepared;
  txn.transaction_lock_timeout = options.transaction_lock_timeout_ms;
  txn.default_lock_timeout = options.default_lock_timeout_ms;
  impl->seq_per_batch_ = options.write_prepared;
  const bool txn_db = options.write_prepared || options.write_committed;
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = OpenRocksDb(o, path, impl->env_.get(), &raw, txn_db ? &txn : nullptr);
  if (!s.ok()) {
    impl->env_->Shutdown();
    return FromRocksDb(s);
  }
  impl->db_.reset(raw);
  if (txn_db && !options.write_prepared) {
    impl->write_committed_ = static_cast<rocksdb::TransactionDB*>(raw);
  }
  *db = std::move(impl);
  return Status::OK();
}

RocksDbDb::~RocksDbDb() { (void)Close(); }

Status RocksDbDb::Close() {
  if (db_ == nullptr) return Status::OK();
  recovered_.clear();  // RocksDB's Close leaves recovered transactions to their user
  const Status s = Proven(db_->Close());
  write_committed_ = nullptr;
  db_.reset();  // waits for what Close left running, as RocksDB's destructor does
  env_->Shutdown();
  return s;
}

Status RocksDbDb::Write(const WriteOptions& options, WriteBatch* batch) {
  if (db_ == nullptr) return Closed();
  ToRocksDbBatch converted;
  Status s = batch->Iterate(&converted);
  if (!s.ok()) return s;
  if (!converted.status.ok()) return FromRocksDb(converted.status);
  s = Proven(db_->Write(RocksDbWriteOptions(options), &converted.batch));
  const uint32_t count = WriteBatchInternal::Count(batch);
  if (!s.ok() || count == 0) return s;
  const uint64_t sequence = SequenceOf(converted.batch);
  const uint64_t latest = db_->GetLatestSequenceNumber();
  const uint64_t taken = seq_per_batch_ ? 1 : count;  // at least one sub-batch
  if (sequence == 0 || sequence + taken - 1 > latest) {
    return Status::Corruption("RocksDB acknowledged a write at sequence " +
                              std::to_string(sequence) + " (" + std::to_string(count) +
                              " records) past its latest sequence " + std::to_string(latest));
  }
  WriteBatchInternal::SetSequence(batch, sequence);
  return s;
}

Status WithWriterErrorCause(const rocksdb::Status& status, const std::string& first_write_error) {
  const Status s = FromRocksDb(status);
  if (s.ok() || first_write_error.empty() || !IsStickyWriterError(s.ToString())) return s;
  return Status::IOError(s.ToString(),
                         "a file this process writes failed before: " + first_write_error);
}

Status RocksDbDb::Proven(const rocksdb::Status& status) const {
  return WithWriterErrorCause(status, env_->first_write_error());
}

rocksdb::WriteOptions RocksDbWriteOptions(const WriteOptions& options) {
  rocksdb::WriteOptions wo;
  wo.sync = options.sync;
  wo.disableWAL = options.disable_wal;
  return wo;
}

rocksdb::ReadOptions RocksDbReadOptions(const ReadOptions& options) {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = options.verify_checksums;
  ro.fill_cache = options.fill_cache;
  if (options.snapshot != nullptr) {
    ro.snapshot = static_cast<const RocksDbSnapshot*>(options.snapshot)->snapshot;
  }
  return ro;
}

Status RocksDbDb::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  if (db_ == nullptr) return Closed();
  return FromRocksDb(db_->Get(RocksDbReadOptions(options), RocksSlice(key), value));
}

Iterator* RocksDbDb::NewIterator(const ReadOptions& options) {
  if (db_ == nullptr) return NewErrorIterator(Closed());
  return new RocksDbIterator(db_->NewIterator(RocksDbReadOptions(options)));
}

const Snapshot* RocksDbDb::GetSnapshot() { return new RocksDbSnapshot(db_->GetSnapshot()); }

void RocksDbDb::ReleaseSnapshot(const Snapshot* snapshot) {
  const auto* mine = static_cast<const RocksDbSnapshot*>(snapshot);
  db_->ReleaseSnapshot(mine->snapshot);
  delete mine;
}

Status RocksDbDb::Flush(const FlushOptions& options) {
  if (db_ == nullptr) return Closed();
  rocksdb::FlushOptions fo;
  fo.wait = options.wait;
  return Proven(db_->Flush(fo));
}

Status RocksDbDb::CompactRange(const CompactRangeOptions& options, const Slice* begin,
                               const Slice* end) {
  if (db_ == nullptr) return Closed();
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = options.bottommost_level_compaction
                                       ? rocksdb::BottommostLevelCompaction::kForce
                                       : rocksdb::BottommostLevelCompaction::kSkip;
  const rocksdb::Slice b = begin != nullptr ? RocksSlice(*begin) : rocksdb::Slice();
  const rocksdb::Slice e = end != nullptr ? RocksSlice(*end) : rocksdb::Slice();
  return Proven(
      db_->CompactRange(co, begin != nullptr ? &b : nullptr, end != nullptr ? &e : nullptr));
}

Status RocksDbDb::SyncWAL() {
  if (db_ == nullptr) return Closed();
  return Proven(db_->SyncWAL());
}

Status RocksDbDb::FlushWAL(bool sync) {
  if (db_ == nullptr) return Closed();
  if ((planted_bugs_ & kBugHostedFlushWalAsSyncWal) != 0) return DB::FlushWAL(sync);
  return Proven(db_->FlushWAL(sync));
}

bool RocksDbDb::GetProperty(const Slice& property, std::string* value) {
  if (db_ == nullptr) return false;
  const std::string name(property.data(), property.size());
  const std::string prefix = "shale.";
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  if (rest != "stats" && rest != "compaction-pending" && rest.rfind("num-files-at-level", 0) != 0) {
    return false;
  }
  return db_->GetProperty("rocksdb." + rest, value);
}

DBStats RocksDbDb::GetStats() { return DBStats(); }

uint64_t RocksDbDb::GetLatestSequenceNumber() const {
  return db_ == nullptr ? 0 : db_->GetLatestSequenceNumber();
}

}  // namespace shale::hosted
