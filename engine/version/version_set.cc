// VersionSet: MANIFEST writing, recovery and live versions (see
// version_set.h). Compaction picking is in compaction_picker.cc.
#include "version/version_set.h"

#include <cmath>
#include <cstdio>

#include "table/merging_iterator.h"
#include "util/check.h"
#include "util/file_options.h"
#include "util/mutexlock.h"
#include "util/probes.h"
#include "version/filename.h"
#include "version/level_iterator.h"
#include "version/version_builder.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale {

VersionSet::VersionSet(std::string dbname, const Options* options, TableCache* table_cache,
                       const InternalKeyComparator* icmp, Env* env, StatsCounters* stats)
    : dbname_(std::move(dbname)),
      options_(options),
      table_cache_(table_cache),
      icmp_(icmp),
      env_(env),
      stats_(stats),
      num_levels_(options->num_levels),
      dummy_versions_(this) {
  SHALE_CHECK(num_levels_ >= 2 && num_levels_ <= kMaxNumLevels);
  AppendVersion(new Version(this));
}

VersionSet::~VersionSet() {
  current_->Unref();
  SHALE_CHECK(dummy_versions_.next_ == &dummy_versions_);  // every Version released
  if (descriptor_log_ != nullptr) {
    // Every record was synced by LogAndApply; closing only frees the handle.
    descriptor_log_->Close().PermitUncheckedError();
  }
}

void VersionSet::AppendVersion(Version* v) {
  SHALE_CHECK(v->refs_ == 0 && v != current_);
  if (current_ != nullptr) current_->Unref();
  current_ = v;
  v->Ref();
  v->prev_ = dummy_versions_.prev_;
  v->next_ = &dummy_versions_;
  v->prev_->next_ = v;
  v->next_->prev_ = v;
}

void VersionSet::SetLastSequence(SequenceNumber s) {
  SHALE_CHECK(s >= LastSequence());
  last_sequence_.store(s, std::memory_order_release);
}

void VersionSet::SetLastAllocatedSequence(SequenceNumber s) {
  SHALE_CHECK(s >= LastAllocatedSequence());
  last_allocated_sequence_ = s;
}

void VersionSet::WriteSnapshot(std::string* record) const {
  VersionEdit edit;
  edit.SetComparatorName(icmp_->user_comparator()->Name());
  for (int level = 0; level < num_levels_; level++) {
    if (!compact_pointer_[level].empty()) {
      InternalKey key;
      if (key.DecodeFrom(compact_pointer_[level])) edit.SetCompactPointer(level, key);
    }
    for (const FileMetaData* f : current_->files(level)) edit.AddFile(level, *f);
  }
  edit.EncodeTo(record);
}

Status VersionSet::WriteManifest(const std::string& snapshot, const std::string& record,
                                 uint64_t new_manifest_number) {
  Status s;
  if (new_manifest_number != 0) {
    // A roll: the old MANIFEST is complete and synced; CURRENT names it
    // until SetCurrentFile below, and obsolete-file deletion removes it
    // once the new one is current.
    if (descriptor_log_ != nullptr) {
      env_->runtime()->YieldPoint("manifest.roll");
      descriptor_log_->Close().PermitUncheckedError();
      descriptor_log_.reset();
    }
    const std::string path = DescriptorFileName(dbname_, new_manifest_number);
    std::unique_ptr<WritableFile> file;
    s = env_->runtime()->InjectedFault("manifest.roll.new_file");
    if (s.ok())
      s = env_->fs()->NewWritableFile(path, FileOptionsFor(*options_, "the MANIFEST writer"),
                                      &file);
    if (!s.ok()) return s;
    auto writer = std::make_unique<WritableFileWriter>(std::move(file), path, stats_);
    descriptor_log_ = std::make_unique<log::Writer>(std::move(writer), new_manifest_number);
    s = descriptor_log_->AddRecord(snapshot);
    if (!s.ok()) return s;
  }
  env_->runtime()->YieldPoint("manifest.before_write");
  s = env_->runtime()->InjectedFault("manifest.write");
  if (s.ok()) s = descriptor_log_->AddRecord(record);
  if (s.ok()) s = env_->runtime()->InjectedFault("manifest.sync");
  if (s.ok()) s = descriptor_log_->Sync();
  if (s.ok() && new_manifest_number != 0) {
    env_->runtime()->YieldPoint("manifest.before_set_current");
    s = env_->runtime()->InjectedFault("manifest.set_current");
    const uint64_t bugs = options_->planted_bugs;
    if (s.ok()) s = RenameCurrentFile(env_->fs(), dbname_, new_manifest_number, stats_, bugs);
    if (s.ok()) {
      // CURRENT names the new MANIFEST, in volatile state only.
      env_->runtime()->YieldPoint("manifest.after_set_current");
      s = SyncCurrentRename(env_->fs(), dbname_, stats_, bugs);
    }
  }
  return s;
}

Status VersionSet::LogAndApply(VersionEdit* edit, Mutex* mu) {
  mu->AssertHeld();
  SHALE_CHECK(!in_log_and_apply_);
  in_log_and_apply_ = true;
  if (edit->has_log_number()) {
    SHALE_CHECK(edit->log_number() >= log_number_ && edit->log_number() < next_file_number_);
  } else {
    edit->SetLogNumber(log_number_);
  }
  if (!edit->has_prev_log_number()) edit->SetPrevLogNumber(prev_log_number_);
  if (!edit->has_min_log_to_keep() && min_log_to_keep_ != 0) {
    edit->SetMinLogToKeep(min_log_to_keep_);
  }
  const bool roll = descriptor_log_ == nullptr ||
                    descriptor_log_->size_bytes() >= options_->max_manifest_file_size;
  if (roll && descriptor_log_ != nullptr) SHALE_PROBE(env_->runtime(), "manifest.rolled_over");
  const uint64_t new_manifest_number = roll ? NewFileNumber() : 0;
  edit->SetNextFile(next_file_number_);
  edit->SetLastSequence(LastAllocatedSequence());
  // Paired with recovery's numbering: a table holding a sequence past the
  // recorded one would have it reused by new writes after a restart.
  for (const auto& [level, meta] : edit->new_files()) {
    if (meta.largest_seqno > edit->last_sequence()) {
      in_log_and_apply_ = false;
      return Status::Corruption("table " + std::to_string(meta.number) + " holds sequence " +
                                std::to_string(meta.largest_seqno) +
                                " past the DB's last allocated sequence " +
                                std::to_string(edit->last_sequence()));
    }
  }

  Version* v = new Version(this);
  Status s;
  {
    VersionBuilder builder(icmp_, num_levels_, current_);
    s = builder.Apply(*edit);
    if (s.ok()) s = builder.SaveTo(v);
  }
  SHALE_CHECK(s.ok());  // level ordering: the DB only applies edits that fit current()
  std::string snapshot;
  if (s.ok() && new_manifest_number != 0) WriteSnapshot(&snapshot);  // reads state under mu
  std::string record;
  edit->EncodeTo(&record);
  if (s.ok()) {
    MutexUnlock unlock(mu);
    s = WriteManifest(snapshot, record, new_manifest_number);
  }
  if (s.ok()) {
    AppendVersion(v);
    log_number_ = edit->log_number();
    prev_log_number_ = edit->prev_log_number();
    if (edit->has_min_log_to_keep()) min_log_to_keep_ = edit->min_log_to_keep();
    if (new_manifest_number != 0) manifest_file_number_ = new_manifest_number;
  } else {
    delete v;
    if (descriptor_log_ != nullptr) {
      // The MANIFEST may end in a partial record: never append to it again.
      // Its close error adds nothing to s.
      descriptor_log_->Close().PermitUncheckedError();
      descriptor_log_.reset();
    }
  }
  in_log_and_apply_ = false;
  return s;
}

namespace {

// Fields that Recover collects from every MANIFEST record.
struct RecoveredCounters {
  bool has_log_number = false, has_prev_log_number = false;
  bool has_next_file = false, has_last_sequence = false;
  uint64_t log_number = 0, prev_log_number = 0, next_file = 0, min_log_to_keep = 0;
  SequenceNumber last_sequence = 0;

  void Take(const VersionEdit& edit) {
    if (edit.has_log_number()) {
      has_log_number = true;
      log_number = edit.log_number();
    }
    if (edit.has_min_log_to_keep()) min_log_to_keep = edit.min_log_to_keep();
    if (edit.has_prev_log_number()) {
      has_prev_log_number = true;
      prev_log_number = edit.prev_log_number();
    }
    if (edit.has_next_file_number()) {
      has_next_file = true;
      next_file = edit.next_file_number();
    }
    if (edit.has_last_sequence()) {
      has_last_sequence = true;
      last_sequence = edit.last_sequence();
    }
  }
};

}  // namespace

Status VersionSet::Recover(bool* save_manifest) {
  // Every Corruption names the file it found damaged.
  const std::string current_path = CurrentFileName(dbname_);
  std::string current;
  Status s = ReadFileToString(env_->fs(), current_path, &current);
  if (!s.ok()) return s;
  std::string manifest_name;
  uint64_t manifest_number = 0;
  s = DecodeCurrentFile(current, &manifest_name, &manifest_number);
  if (!s.ok()) return Status::Corruption(current_path, s.message());
  // Read whole: the damaged-tail check scans the bytes after any damage.
  const std::string manifest_path = dbname_ + "/" + manifest_name;
  std::string manifest;
  s = ReadFileToString(env_->fs(), manifest_path, &manifest);
  if (!s.ok()) {
    if (s.IsPathNotFound()) {
      return Status::Corruption(current_path, "names a missing MANIFEST: " + manifest_name);
    }
    return s;
  }

  RecoveredCounters counters;
  VersionBuilder builder(icmp_, num_levels_, current_);
  std::string compact_pointers[kMaxNumLevels];
  auto apply = [&](const Slice& record) -> Status {
    VersionEdit edit;
    Status st = edit.DecodeFrom(record);
    if (!st.ok()) return st;
    if (edit.has_comparator() && edit.comparator() != icmp_->user_comparator()->Name()) {
      return Status::InvalidArgument(edit.comparator() + " does not match comparator ",
                                     icmp_->user_comparator()->Name());
    }
    for (const auto& [level, key] : edit.compact_pointers()) {
      if (level >= num_levels_) return Status::Corruption("compact pointer level out of range");
      compact_pointers[level] = key.Encode().ToString();
    }
    counters.Take(edit);
    return builder.Apply(edit);
  };
  log::ReplayResult result;
  s = log::ReplayLogWithDamagedTail(manifest, manifest_number, apply, &result);
  if (result.stopped_at_damage) SHALE_PROBE(env_->runtime(), "recovery.manifest_torn_tail_dropped");
  if (s.IsCorruption()) return Status::Corruption(manifest_path, s.ToString());
  if (!s.ok()) return s;
  if (!counters.has_next_file) return Status::Corruption("MANIFEST has no next-file entry");
  if (!counters.has_log_number) return Status::Corruption("MANIFEST has no log-number entry");
  if (!counters.has_last_sequence) return Status::Corruption("MANIFEST has no last-sequence entry");

  Version* v = new Version(this);
  s = builder.SaveTo(v);
  if (!s.ok()) {
    delete v;
    return s;
  }
  AppendVersion(v);
  for (int level = 0; level < num_levels_; level++) {
    compact_pointer_[level] = compact_pointers[level];
    for (const FileMetaData* f : v->files(level)) MarkFileNumberUsed(f->number);
  }
  manifest_file_number_ = manifest_number;
  MarkFileNumberUsed(counters.next_file > 0 ? counters.next_file - 1 : 0);
  MarkFileNumberUsed(manifest_number);
  MarkFileNumberUsed(counters.log_number);
  MarkFileNumberUsed(counters.prev_log_number);
  log_number_ = counters.log_number;
  prev_log_number_ = counters.prev_log_number;
  min_log_to_keep_ = counters.min_log_to_keep;
  last_sequence_.store(counters.last_sequence, std::memory_order_release);
  *save_manifest = true;  // never append to a MANIFEST this process did not write
  return Status::OK();
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) const {
  for (const Version* v = dummy_versions_.next_; v != &dummy_versions_; v = v->next_) {
    for (const auto& level_files : v->files_) {
      for (const FileMetaData* f : level_files) live->insert(f->number);
    }
  }
}

uint64_t VersionSet::MaxBytesForLevel(int level) const {
  SHALE_CHECK(level >= 1);
  double bytes = static_cast<double>(options_->max_bytes_for_level_base);
  for (int l = 1; l < level; l++) bytes *= options_->max_bytes_for_level_multiplier;
  return bytes >= 1.8e19 ? ~uint64_t{0} : static_cast<uint64_t>(bytes);
}

uint64_t VersionSet::ApproximateOffsetOf(Version* v, const InternalKey& key) {
  uint64_t result = 0;
  for (int level = 0; level < v->NumLevels(); level++) {
    for (const FileMetaData* f : v->files(level)) {
      if (icmp_->Compare(f->largest.Encode(), key.Encode()) <= 0) {
        result += f->file_size;  // entirely before key
      } else if (icmp_->Compare(f->smallest.Encode(), key.Encode()) > 0) {
        if (level > 0) break;  // sorted: every later file is after key too
      } else {
        Table* table = nullptr;
        Iterator* iter = table_cache_->NewIterator(ReadOptions(), *f, &table);
        if (table != nullptr) result += table->ApproximateOffsetOf(key.Encode());
        delete iter;
      }
    }
  }
  return result;
}

Iterator* VersionSet::NewLevelIterator(const ReadOptions& options,
                                       const std::vector<FileMetaData*>* files) {
  return shale::NewLevelIterator(options, table_cache_, icmp_, files);
}

Iterator* VersionSet::MakeInputIterator(Compaction* c) {
  ReadOptions options;
  options.verify_checksums = options_->paranoid_checks;
  options.fill_cache = false;
  std::vector<Iterator*> list;
  for (int which = 0; which < 2; which++) {
    const std::vector<FileMetaData*>& files = c->inputs_[which];
    if (files.empty()) continue;
    if (which == 0 && c->level() == 0) {
      for (const FileMetaData* f : files) {
        list.push_back(table_cache_->NewIterator(options, *f));
      }
    } else {
      list.push_back(NewLevelIterator(options, &files));
    }
  }
  if (list.empty()) return NewEmptyIterator();
  return NewMergingIterator(icmp_, list.data(), static_cast<int>(list.size()));
}

Status WriteNewDBManifest(FileSystem* fs, const std::string& dbname,
                          const Comparator* user_comparator, StatsCounters* stats) {
  constexpr uint64_t kManifestNumber = 1;
  VersionEdit edit;
  edit.SetComparatorName(user_comparator->Name());
  edit.SetLogNumber(0);
  edit.SetNextFile(kManifestNumber + 1);
  edit.SetLastSequence(0);
  std::string record;
  edit.EncodeTo(&record);

  const std::string path = DescriptorFileName(dbname, kManifestNumber);
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, FileOptions(), &file);
  if (!s.ok()) return s;
  {
    log::Writer writer(std::make_unique<WritableFileWriter>(std::move(file), path, stats),
                       kManifestNumber);
    s = writer.AddRecord(record);
    if (s.ok()) s = writer.Sync();
    s = FirstError(s, writer.Close());
  }
  if (!s.ok()) {
    // Nothing names the half-written MANIFEST yet; the caller reports s.
    fs->DeleteFile(path).PermitUncheckedError();
    return s;
  }
  return SetCurrentFile(fs, dbname, kManifestNumber, stats);
}

}  // namespace shale
