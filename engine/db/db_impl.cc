// DBImpl: construction, Open/Close, reads, snapshots and properties.
#include "db/db_impl.h"

#include <algorithm>
#include <cstdio>

#include "db/db_iter.h"
#include "memtable/memtable.h"
#include "shale/cache.h"
#include "table/merging_iterator.h"
#include "util/compression.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "version/filename.h"
#include "wal/log_writer.h"

namespace shale {

namespace {
constexpr uint64_t kMaxWriteThreadYieldMicros = 10000;

template <class T>
void ClipToRange(T* value, T min, T max) {
  if (*value < min) *value = min;
  if (*value > max) *value = max;
}
}  // namespace

Options SanitizeOptions(const Options& src) {
  Options o = src;
  if (o.env == nullptr) o.env = Env::Default();
  if (o.comparator == nullptr) o.comparator = BytewiseComparator();
  if (o.block_cache == nullptr) {
    o.block_cache = NewLRUCache(8 << 20, 4, o.env->runtime());
  }
  ClipToRange<size_t>(&o.write_buffer_size, 1024, size_t{1} << 30);
  ClipToRange(&o.max_write_buffer_number, 2, 64);
  ClipToRange(&o.num_levels, 2, kMaxNumLevels);
  ClipToRange(&o.level0_file_num_compaction_trigger, 1, 1 << 20);
  if (o.level0_slowdown_writes_trigger < o.level0_file_num_compaction_trigger)
    o.level0_slowdown_writes_trigger = o.level0_file_num_compaction_trigger;
  if (o.level0_stop_writes_trigger < o.level0_slowdown_writes_trigger)
    o.level0_stop_writes_trigger = o.level0_slowdown_writes_trigger;
  ClipToRange<uint64_t>(&o.max_bytes_for_level_base, 1024, uint64_t{1} << 40);
  ClipToRange(&o.max_bytes_for_level_multiplier, 1.5, 1000.0);
  // Not a number, or negative: no memtable filter.
  if (!(o.memtable_prefix_bloom_size_ratio > 0)) o.memtable_prefix_bloom_size_ratio = 0;
  ClipToRange(&o.memtable_prefix_bloom_size_ratio, 0.0, 0.25);
  ClipToRange<uint64_t>(&o.target_file_size_base, 1024, uint64_t{1} << 32);
  ClipToRange<size_t>(&o.block_size, 64, 4 << 20);
  ClipToRange(&o.block_restart_interval, 1, 1024);
  ClipToRange(&o.bloom_bits_per_key, 0, 64);
  if (o.max_open_files != -1) ClipToRange(&o.max_open_files, 20, 1 << 22);
  return o;
}

DBImpl::DBImpl(const Options& sanitized, const std::string& dbname)
    : env_(sanitized.env),
      fs_(env_->fs()),
      runtime_(env_->runtime()),
      dbname_(dbname),
      internal_comparator_(sanitized.comparator),
      options_(sanitized),
      block_cache_(options_.block_cache),
      mutex_(runtime_->NewMutex()),
      bg_cv_(runtime_->NewCondVar(mutex_.get())),
      write_thread_(options_, mutex_.get(), runtime_, &stats_) {
  if (options_.allow_concurrent_memtable_write || options_.unordered_write) {
    memtable_mu_ = runtime_->NewMutex();
  }
  if (options_.two_write_queues) wal_mu_ = runtime_->NewMutex();
  table_options_.comparator = &internal_comparator_;
  table_options_.block_size = options_.block_size;
  table_options_.block_restart_interval = options_.block_restart_interval;
  table_options_.bloom_bits_per_key = options_.bloom_bits_per_key;
  table_options_.compression = options_.compression;
  table_options_.block_cache = block_cache_.get();
  table_options_.paranoid_checks = options_.paranoid_checks;
  table_options_.stats = &stats_;
  table_options_.runtime = runtime_;
  int table_cache_files = options_.max_open_files;
  if (HasBug(kBugTableCacheIgnoresLimit)) table_cache_files = -1;
  if (HasBug(kBugTableCacheBoundsUnlimited) && table_cache_files == -1) table_cache_files = 20;
  table_cache_ = std::make_unique<TableCache>(
      dbname_, table_options_, table_cache_files, env_, &stats_,
      FileOptionsFor(options_, "the table cache", options_.use_direct_reads,
                     options_.allow_mmap_reads));
  if (HasBug(kBugTableGetReleasesTwice)) table_cache_->PlantReleaseTwiceOnMiss();
  versions_ = std::make_unique<VersionSet>(dbname_, &options_, table_cache_.get(),
                                           &internal_comparator_, env_, &stats_);
}

DBImpl::~DBImpl() {
  // Errors at close cannot be reported from a destructor; Close() returns them.
  Close().PermitUncheckedError();
  if (mem_ != nullptr) mem_->Unref();
  imm_.UnrefAll();
  log_.reset();
  versions_.reset();
  table_cache_.reset();
  if (db_lock_ != nullptr) fs_->UnlockFile(std::move(db_lock_)).PermitUncheckedError();
}

Status ValidateOptions(const Options& options) {
  if (!IsBlockCompressionType(options.compression)) {
    return Status::InvalidArgument("compression must be none, snappy, lz4 or zstd");
  }
  if (options.bottommost_compression != kDisableCompressionOption &&
      !IsBlockCompressionType(options.bottommost_compression)) {
    return Status::InvalidArgument(
        "bottommost_compression must be none, snappy, lz4, zstd or kDisableCompressionOption");
  }
  if (options.unordered_write && options.enable_pipelined_write) {
    return Status::NotSupported("unordered_write is not compatible with enable_pipelined_write");
  }
  if (options.two_write_queues && options.enable_pipelined_write) {
    return Status::NotSupported("two_write_queues is not compatible with enable_pipelined_write");
  }
  if (options.write_thread_max_yield_usec > kMaxWriteThreadYieldMicros) {
    return Status::InvalidArgument("write_thread_max_yield_usec is above " +
                                   std::to_string(kMaxWriteThreadYieldMicros));
  }
  if (options.unordered_write && !options.allow_concurrent_memtable_write) {
    return Status::InvalidArgument("unordered_write requires allow_concurrent_memtable_write");
  }
  return Status::OK();
}

Status DB::Open(const Options& options, const std::string& dbname, std::unique_ptr<DB>* dbptr) {
  dbptr->reset();
  Status valid = ValidateOptions(options);
  if (!valid.ok()) return valid;
  auto impl = std::make_unique<DBImpl>(SanitizeOptions(options), dbname);
  Status s = impl->OpenImpl();
  if (s.ok()) *dbptr = std::move(impl);
  return s;
}

Status DBImpl::Close() {
  Status result;
  // Planted bug: the join comes before the shutdown signal it waits for.
  if (HasBug(kBugCloseJoinsBeforeShutdown) && flush_thread_ != nullptr) flush_thread_->Join();
  {
    MutexLock l(mutex_.get());
    if (closed_) return Status::OK();
    // Refuse new writes and manual compactions, then let the ones in flight
    // finish: only a front writer may switch memtables or touch log_.
    closed_ = true;
    while (!write_thread_.Idle() || manual_compactions_running_ > 0) {
      bg_cv_->Wait();
    }
    // Writes made without the WAL live only in memory: flush them, as
    // RocksDB does on close (avoid_flush_during_shutdown=false).
    if (has_unpersisted_data_ && bg_error_.ok() && flush_thread_ != nullptr) {
      result = SwitchMemTable();
      if (result.ok()) result = WaitForFlushOf(mem_id_ - 1);
      if (result.ok()) has_unpersisted_data_ = false;
    }
    shutting_down_.store(true, std::memory_order_release);
    bg_cv_->SignalAll();
  }
  if (flush_thread_ != nullptr) flush_thread_->Join();
  if (compaction_thread_ != nullptr) compaction_thread_->Join();
  flush_thread_.reset();
  compaction_thread_.reset();
  MutexLock l(mutex_.get());
  snapshots_.Clear();
  if (log_ != nullptr) result = FirstError(result, log_->Close());
  return result;
}

SequenceNumber DBImpl::OldestSnapshotOrLast() {
  MutexLock l(mutex_.get());
  return SmallestSnapshotOrLast();
}

uint64_t DBImpl::LiveLogNumber() {
  MutexLock l(mutex_.get());
  return logfile_number_;
}

uint64_t DBImpl::FirstUnflushedLogNumber() {
  MutexLock l(mutex_.get());
  return versions_->LogNumber();
}

SequenceNumber DBImpl::SmallestSnapshotOrLast() const {
  return snapshots_.empty() ? versions_->LastSequence() : snapshots_.oldest_sequence();
}

Status DBImpl::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  SHALE_COUNT(&stats_, gets, 1);
  MemTable* mem;
  std::vector<MemTable*> imms;
  Version* current;
  SequenceNumber seq;
  {
    MutexLock l(mutex_.get());
    seq = options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                      : versions_->LastSequence();
    if (options.snapshot == nullptr && HasBug(kBugUnorderedGetReadsStale) &&
        options_.unordered_write && !options_.two_write_queues) {
      seq = sequence_before_last_publish_;
    }
    mem = mem_;
    mem->Ref();
    imm_.RefNewestFirst(&imms);
    current = versions_->current();
    current->Ref();
  }
  runtime_->YieldPoint("get.after_pin");
  LookupKey lkey(key, seq);
  Status s;
  bool done = mem->Get(lkey, value, &s);
  for (size_t i = 0; !done && i < imms.size(); i++) {
    done = imms[i]->Get(lkey, value, &s);
    if (done) SHALE_PROBE(runtime_, "read.get_from_immutable_memtable");
  }
  Version::SeekCharge seek;
  if (!done && !current->Get(options, lkey, value, &s, &seek)) s = Status::NotFound();
  MutexLock l(mutex_.get());
  if (!options_.disable_seek_compaction && !options_.disable_auto_compactions &&
      current->ChargeSeek(seek)) {
    bg_cv_->SignalAll();  // the compaction thread may have a seek compaction to run
  }
  mem->Unref();
  for (MemTable* m : imms) m->Unref();
  current->Unref();
  return s;
}

Iterator* DBImpl::NewInternalIterator(const ReadOptions& options, SequenceNumber* latest) {
  MutexLock l(mutex_.get());
  *latest = versions_->LastSequence();
  std::vector<Iterator*> children;
  std::vector<MemTable*> pinned;  // newest first, each referenced
  mem_->Ref();
  pinned.push_back(mem_);
  imm_.RefNewestFirst(&pinned);
  for (MemTable* m : pinned) children.push_back(m->NewIterator());
  Version* current = versions_->current();
  current->AddIterators(options, &children);
  Iterator* merged =
      NewMergingIterator(&internal_comparator_, children.data(), static_cast<int>(children.size()));
  current->Ref();
  Mutex* mu = mutex_.get();
  merged->RegisterCleanup([mu, pinned, current]() {
    MutexLock lock(mu);
    for (MemTable* m : pinned) m->Unref();
    current->Unref();
  });
  return merged;
}

Iterator* DBImpl::NewIterator(const ReadOptions& options) {
  return NewIteratorWithCallback(options, nullptr);
}

Iterator* DBImpl::NewIteratorWithCallback(const ReadOptions& options,
                                          const ReadCallback* callback) {
  SequenceNumber latest;
  Iterator* internal = NewInternalIterator(options, &latest);
  // The memtables and version are pinned: a flush or compaction may
  // install (and retire what it replaced) before the first read.
  runtime_->YieldPoint("iterator.after_pin");
  const SequenceNumber seq =
      options.snapshot != nullptr ? options.snapshot->GetSequenceNumber() : latest;
  return NewDBIterator(internal_comparator_.user_comparator(), internal, seq, callback,
                       options_.planted_bugs, runtime_,
                       options.snapshot == nullptr ? versions_.get() : nullptr);
}

Status DBImpl::GetLatestSequenceForKey(const Slice& key, const ReadCallback* callback,
                                       SequenceNumber* seq, bool* found) {
  *found = false;
  SequenceNumber latest;
  std::unique_ptr<Iterator> it(NewInternalIterator(ReadOptions(), &latest));
  std::string target;
  AppendInternalKey(&target, ParsedInternalKey(key, kMaxSequenceNumber, kValueTypeForSeek));
  const Comparator* ucmp = internal_comparator_.user_comparator();
  for (it->Seek(target); it->Valid(); it->Next()) {
    ParsedInternalKey ikey;
    if (!ParseInternalKey(it->key(), &ikey)) {
      return Status::Corruption("malformed internal key", it->key().ToHex());
    }
    if (ucmp->Compare(ikey.user_key, key) != 0) break;
    if (callback == nullptr || callback->IsVisible(ikey.sequence)) {
      *seq = ikey.sequence;
      *found = true;
      break;
    }
  }
  return it->status();
}

Status DBImpl::GetWithCallback(const ReadOptions& options, const Slice& key, std::string* value,
                               const ReadCallback* callback) {
  if (callback == nullptr) return Get(options, key, value);
  // Through an iterator, which walks past hidden versions (a point lookup
  // stops at the newest one); filters do not help here.
  SHALE_COUNT(&stats_, gets, 1);
  std::unique_ptr<Iterator> it(NewIteratorWithCallback(options, callback));
  it->Seek(key);
  Status s = it->status();
  if (!s.ok()) return s;
  if (!it->Valid() || internal_comparator_.user_comparator()->Compare(it->key(), key) != 0) {
    return Status::NotFound();
  }
  const Slice v = it->value();
  value->assign(v.data(), v.size());
  return Status::OK();
}

const Snapshot* DBImpl::GetSnapshot() {
  MutexLock l(mutex_.get());
  if (HasBug(kBugStaleSnapshotSequence)) return snapshots_.New(sequence_before_last_publish_);
  return snapshots_.New(versions_->LastSequence());
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  MutexLock l(mutex_.get());
  snapshots_.Delete(static_cast<const SnapshotImpl*>(snapshot));
}

bool DBImpl::GetProperty(const Slice& property, std::string* value) {
  value->clear();
  MutexLock l(mutex_.get());
  Slice in = property;
  const Slice prefix("shale.");
  if (!in.starts_with(prefix)) return false;
  in.remove_prefix(prefix.size());
  Version* current = versions_->current();
  const Slice level_prefix("num-files-at-level");
  if (in.starts_with(level_prefix)) {
    in.remove_prefix(level_prefix.size());
    uint64_t level = 0;
    for (char c : in.view()) {
      if (c < '0' || c > '9' || level > 1000) return false;
      level = level * 10 + static_cast<uint64_t>(c - '0');
    }
    if (in.empty() || level >= static_cast<uint64_t>(current->NumLevels())) return false;
    *value = std::to_string(current->NumFiles(static_cast<int>(level)));
    return true;
  }
  if (in == Slice("levelstats") || in == Slice("stats")) {
    char line[160];
    *value += "Level  Files  Size(bytes)\n------------------------\n";
    for (int level = 0; level < current->NumLevels(); level++) {
      snprintf(line, sizeof(line), "%5d %6d %12llu\n", level, current->NumFiles(level),
               static_cast<unsigned long long>(current->NumLevelBytes(level)));
      *value += line;
    }
    if (in == Slice("stats")) {
      snprintf(line, sizeof(line), "immutable memtables: %zu\nsequence: %llu\n", imm_.size(),
               static_cast<unsigned long long>(versions_->LastSequence()));
      *value += line;
      *value += stats_.Snapshot().ToString();
    }
    return true;
  }
  if (in == Slice("sstables")) {
    *value = current->DebugString();
    return true;
  }
  if (in == Slice("compaction-pending")) {
    const bool pending = !imm_.empty() || flush_running_ || compactions_running_ > 0 ||
                         manual_compactions_running_ > 0 || CompactionWanted();
    *value = pending ? "1" : "0";
    return true;
  }
  if (in == Slice("num-immutable-mem-table")) {
    *value = std::to_string(imm_.size());
    return true;
  }
  if (in == Slice("cur-size-active-mem-table")) {
    *value = std::to_string(mem_->ApproximateMemoryUsage());
    return true;
  }
  return false;
}

Status DestroyDB(const std::string& dbname, const Options& raw_options) {
  const Options options = SanitizeOptions(raw_options);
  FileSystem* fs = options.env->fs();
  std::vector<std::string> names;
  Status s = fs->GetChildren(dbname, &names);
  if (!s.ok()) return s.IsPathNotFound() ? Status::OK() : s;
  std::unique_ptr<FileLock> lock;
  const std::string lockname = LockFileName(dbname);
  s = fs->LockFile(lockname, &lock);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type != FileType::kDBLockFile) {
      s = FirstError(s, fs->DeleteFile(dbname + "/" + name));
    }
  }
  s = FirstError(s, fs->UnlockFile(std::move(lock)));
  // The lock file and directory go last; failures here leave only an empty dir.
  fs->DeleteFile(lockname).PermitUncheckedError();
  fs->DeleteDir(dbname).PermitUncheckedError();
  return s;
}

}  // namespace shale
