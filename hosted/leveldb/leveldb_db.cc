// LevelDbDb: see leveldb_db.h.
#include "hosted/leveldb/leveldb_db.h"

#include <leveldb/helpers/memenv.h>
#include <leveldb/write_batch.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "db/write_batch_internal.h"
#include "hosted/hosted_code.h"

namespace shale::hosted {

namespace {

// Where LevelDB 1.23's SnapshotImpl keeps its sequence number: after the
// vtable pointer and the prev_/next_ links of its snapshot list.
constexpr size_t kSnapshotSequenceOffset = 3 * sizeof(void*);

uint64_t SequenceOf(const leveldb::Snapshot* snapshot) {
  uint64_t sequence = 0;
  std::memcpy(&sequence, reinterpret_cast<const char*>(snapshot) + kSnapshotSequenceOffset,
              sizeof(sequence));
  return sequence;
}

class LevelDbSnapshot final : public Snapshot {
 public:
  explicit LevelDbSnapshot(const leveldb::Snapshot* snapshot)
      : snapshot(snapshot), sequence(SequenceOf(snapshot)) {}
  ~LevelDbSnapshot() override = default;
  uint64_t GetSequenceNumber() const override { return sequence; }
  const leveldb::Snapshot* const snapshot;
  const uint64_t sequence;
};

class LevelDbIterator final : public Iterator {
 public:
  explicit LevelDbIterator(leveldb::Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(const Slice& target) override {
    it_->Seek(leveldb::Slice(target.data(), target.size()));
  }
  void SeekForPrev(const Slice& target) override {
    Seek(target);
    if (!it_->Valid()) {
      if (it_->status().ok()) it_->SeekToLast();
    } else if (it_->key().compare(leveldb::Slice(target.data(), target.size())) > 0) {
      it_->Prev();
    }
  }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  Slice key() const override { return Slice(it_->key().data(), it_->key().size()); }
  Slice value() const override { return Slice(it_->value().data(), it_->value().size()); }
  Status status() const override { return FromLevelDb(it_->status()); }

 private:
  std::unique_ptr<leveldb::Iterator> it_;
};

// Rebuilds a Shale batch as LevelDB's (the two encode records alike).
class ToLevelDbBatch final : public WriteBatch::Handler {
 public:
  void Put(const Slice& key, const Slice& value) override {
    batch.Put(leveldb::Slice(key.data(), key.size()), leveldb::Slice(value.data(), value.size()));
  }
  void Delete(const Slice& key) override { batch.Delete(leveldb::Slice(key.data(), key.size())); }
  leveldb::WriteBatch batch;
};

Status CheckLayoutOnce() {
  std::unique_ptr<leveldb::Env> env(leveldb::NewMemEnv(leveldb::Env::Default()));
  leveldb::Options options;
  options.env = env.get();
  options.create_if_missing = true;
  leveldb::DB* raw = nullptr;
  const leveldb::Status s = leveldb::DB::Open(options, "/layout-check", &raw);
  if (!s.ok()) return FromLevelDb(s);
  std::unique_ptr<leveldb::DB> db(raw);
  leveldb::WriteBatch three;
  three.Put("a", "1");
  three.Delete("b");
  three.Put("c", "3");
  uint64_t seen[3] = {0, 0, 0};
  for (int step = 0; step < 3; step++) {
    if (step == 1 && !db->Put(leveldb::WriteOptions(), "k", "v").ok()) break;
    if (step == 2 && !db->Write(leveldb::WriteOptions(), &three).ok()) break;
    const leveldb::Snapshot* snapshot = db->GetSnapshot();
    seen[step] = SequenceOf(snapshot);
    db->ReleaseSnapshot(snapshot);
  }
  if (seen[0] != 0 || seen[1] != 1 || seen[2] != 4) {
    return Status::NotSupported("this LevelDB keeps snapshot sequences elsewhere than 1.23");
  }
  return Status::OK();
}

// Every call but the destructor after Close: an error, as Shale's DB.
Status Closed() { return Status::InvalidArgument("the DB is closed"); }

}  // namespace

Status FromLevelDb(const leveldb::Status& status) {
  if (status.ok()) return Status::OK();
  const std::string text = status.ToString();
  if (status.IsNotFound()) return Status::NotFound(text);
  if (status.IsCorruption()) return Status::Corruption(text);
  if (status.IsNotSupportedError()) return Status::NotSupported(text);
  if (status.IsInvalidArgument()) return Status::InvalidArgument(text);
  return Status::IOError(text);
}

std::string LevelDbVersion() {
  return std::to_string(leveldb::kMajorVersion) + "." + std::to_string(leveldb::kMinorVersion) +
         " (" + LoadedLibraryFile("libleveldb.so") + ")";
}

namespace {
HostingPreparation preparation;
}  // namespace

Status PrepareLevelDbHosting() {
  return preparation.Prepare([] {
    Status s = PrepareHostedLibrary("libleveldb.so");
    if (s.ok()) s = CheckLayoutOnce();
    return s;
  });
}

Status LevelDbDb::Open(const LevelDbOptions& options, Env* env, const std::string& path,
                       std::unique_ptr<DB>* db) {
  if (!preparation.ready()) {
    return Status::NotSupported("LevelDB hosting is not ready: call PrepareLevelDbHosting first");
  }
  std::unique_ptr<LevelDbDb> impl(new LevelDbDb());
  impl->env_ = std::make_unique<LevelDbEnv>(env, options.planted_bugs);
  impl->env_->set_log_tap(&impl->tap_);
  impl->env_->set_info_log_trace(options.info_log_trace);
  leveldb::Options o;
  o.env = impl->env_.get();
  o.create_if_missing = true;
  o.write_buffer_size = options.write_buffer_size;
  o.max_open_files = options.max_open_files;
  if (options.block_cache_bytes > 0) {
    impl->cache_.reset(leveldb::NewLRUCache(options.block_cache_bytes));
    o.block_cache = impl->cache_.get();
  }
  o.block_size = options.block_size;
  o.block_restart_interval = options.block_restart_interval;
  o.max_file_size = options.max_file_size;
  o.compression =
      options.snappy_compression ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  if (options.bloom_bits_per_key > 0) {
    impl->filter_.reset(leveldb::NewBloomFilterPolicy(options.bloom_bits_per_key));
    o.filter_policy = impl->filter_.get();
  }
  o.paranoid_checks = options.paranoid_checks;
  o.reuse_logs = options.reuse_logs;
  leveldb::DB* raw = nullptr;
  const leveldb::Status s = leveldb::DB::Open(o, path, &raw);
  if (!s.ok()) {
    impl->env_->Shutdown();
    return FromLevelDb(s);
  }
  impl->db_.reset(raw);
  *db = std::move(impl);
  return Status::OK();
}

LevelDbDb::~LevelDbDb() { (void)Close(); }

Status LevelDbDb::Close() {
  if (db_ == nullptr) return Status::OK();
  db_.reset();  // waits for LevelDB's background work, as its destructor does
  env_->Shutdown();
  return Status::OK();
}

Status LevelDbDb::Write(const WriteOptions& options, WriteBatch* batch) {
  if (db_ == nullptr) return Closed();
  if (options.disable_wal) return Status::NotSupported("LevelDB always writes its log");
  ToLevelDbBatch converted;
  Status s = batch->Iterate(&converted);
  if (!s.ok()) return s;
  leveldb::WriteOptions wo;
  wo.sync = options.sync;
  const Slice contents = WriteBatchInternal::Contents(batch);
  tap_.BeginWrite(std::string(contents.data() + WriteBatchInternal::kHeaderBytes,
                              contents.size() - WriteBatchInternal::kHeaderBytes));
  s = FromLevelDb(db_->Write(wo, &converted.batch));
  const std::optional<uint64_t> sequence = tap_.EndWrite();
  if (s.ok() && sequence) WriteBatchInternal::SetSequence(batch, *sequence);
  // A batch of no records takes no sequence and may ride in any group.
  if (s.ok() && !sequence && WriteBatchInternal::Count(batch) > 0) {
    unlogged_acks_++;
    s = Status::Corruption("LevelDB acknowledged a write its log does not hold");
  }
  return s;
}

leveldb::ReadOptions LevelDbDb::ToLevelDb(const ReadOptions& options) const {
  leveldb::ReadOptions ro;
  ro.verify_checksums = options.verify_checksums;
  ro.fill_cache = options.fill_cache;
  if (options.snapshot != nullptr) {
    ro.snapshot = static_cast<const LevelDbSnapshot*>(options.snapshot)->snapshot;
  }
  return ro;
}

Status LevelDbDb::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  if (db_ == nullptr) return Closed();
  return FromLevelDb(db_->Get(ToLevelDb(options), leveldb::Slice(key.data(), key.size()), value));
}

Iterator* LevelDbDb::NewIterator(const ReadOptions& options) {
  if (db_ == nullptr) return NewErrorIterator(Closed());
  return new LevelDbIterator(db_->NewIterator(ToLevelDb(options)));
}

const Snapshot* LevelDbDb::GetSnapshot() { return new LevelDbSnapshot(db_->GetSnapshot()); }

void LevelDbDb::ReleaseSnapshot(const Snapshot* snapshot) {
  const auto* mine = static_cast<const LevelDbSnapshot*>(snapshot);
  db_->ReleaseSnapshot(mine->snapshot);
  delete mine;
}

Status LevelDbDb::Flush(const FlushOptions&) {
  return Status::NotSupported("LevelDB has no Flush");
}

Status LevelDbDb::CompactRange(const CompactRangeOptions&, const Slice* begin, const Slice* end) {
  if (db_ == nullptr) return Closed();
  const leveldb::Slice b =
      begin != nullptr ? leveldb::Slice(begin->data(), begin->size()) : leveldb::Slice();
  const leveldb::Slice e =
      end != nullptr ? leveldb::Slice(end->data(), end->size()) : leveldb::Slice();
  db_->CompactRange(begin != nullptr ? &b : nullptr, end != nullptr ? &e : nullptr);
  return Status::OK();
}

Status LevelDbDb::SyncWAL() { return Status::NotSupported("LevelDB has no SyncWAL"); }

bool LevelDbDb::GetProperty(const Slice& property, std::string* value) {
  if (db_ == nullptr) return false;
  const std::string name(property.data(), property.size());
  const std::string prefix = "shale.";
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  if (rest != "stats" && rest.rfind("num-files-at-level", 0) != 0) return false;
  return db_->GetProperty("leveldb." + rest, value);
}

DBStats LevelDbDb::GetStats() { return DBStats(); }

uint64_t LevelDbDb::GetLatestSequenceNumber() const {
  if (db_ == nullptr) return 0;
  const leveldb::Snapshot* snapshot = db_->GetSnapshot();
  const uint64_t sequence = SequenceOf(snapshot);
  db_->ReleaseSnapshot(snapshot);
  return sequence;
}

}  // namespace shale::hosted
