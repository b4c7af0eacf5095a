// File names in a DB directory, and the CURRENT switch (see filename.h).
#include "version/filename.h"

#include <cinttypes>
#include <cstdio>
#include <memory>

#include "shale/options.h"
#include "util/file_writer.h"

namespace shale {

namespace {

std::string NumberedName(const std::string& dbname, uint64_t number, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/%06" PRIu64 ".%s", number, suffix);
  return dbname + buf;
}

// Parses a decimal uint64 at the front of *in (at least one digit); consumes it.
bool ConsumeDecimal(std::string_view* in, uint64_t* value) {
  constexpr uint64_t kMax = ~uint64_t{0};
  uint64_t v = 0;
  size_t digits = 0;
  while (digits < in->size() && (*in)[digits] >= '0' && (*in)[digits] <= '9') {
    const uint64_t d = static_cast<uint64_t>((*in)[digits] - '0');
    if (v > (kMax - d) / 10) return false;  // overflow
    v = v * 10 + d;
    digits++;
  }
  if (digits == 0) return false;
  in->remove_prefix(digits);
  *value = v;
  return true;
}

}  // namespace

std::string LogFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "log");
}
std::string TableFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "sst");
}
std::string TempFileName(const std::string& dbname, uint64_t number) {
  return NumberedName(dbname, number, "dbtmp");
}
std::string DescriptorFileName(const std::string& dbname, uint64_t number) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/MANIFEST-%06" PRIu64, number);
  return dbname + buf;
}
std::string CurrentFileName(const std::string& dbname) { return dbname + "/CURRENT"; }
std::string LockFileName(const std::string& dbname) { return dbname + "/LOCK"; }
std::string InfoLogFileName(const std::string& dbname) { return dbname + "/LOG"; }

bool ParseFileName(const std::string& filename, uint64_t* number, FileType* type) {
  std::string_view rest(filename);
  if (rest == "CURRENT" || rest == "LOCK" || rest == "LOG") {
    *number = 0;
    *type = rest == "CURRENT" ? FileType::kCurrentFile
            : rest == "LOCK"  ? FileType::kDBLockFile
                              : FileType::kInfoLogFile;
    return true;
  }
  constexpr std::string_view kManifestPrefix = "MANIFEST-";
  if (rest.starts_with(kManifestPrefix)) {
    rest.remove_prefix(kManifestPrefix.size());
    uint64_t num = 0;
    if (!ConsumeDecimal(&rest, &num) || !rest.empty()) return false;
    *number = num;
    *type = FileType::kDescriptorFile;
    return true;
  }
  uint64_t num = 0;
  if (!ConsumeDecimal(&rest, &num)) return false;
  if (rest == ".log") {
    *type = FileType::kLogFile;
  } else if (rest == ".sst") {
    *type = FileType::kTableFile;
  } else if (rest == ".dbtmp") {
    *type = FileType::kTempFile;
  } else {
    return false;
  }
  *number = num;
  return true;
}

std::string EncodeCurrentFile(uint64_t descriptor_number) {
  const std::string manifest = DescriptorFileName("", descriptor_number);
  return manifest.substr(1) + "\n";
}

Status DecodeCurrentFile(const std::string& contents, std::string* manifest_name,
                         uint64_t* descriptor_number) {
  if (contents.empty() || contents.back() != '\n') {
    return Status::Corruption("does not end with newline");
  }
  std::string name = contents.substr(0, contents.size() - 1);
  FileType type;
  if (!ParseFileName(name, descriptor_number, &type) || type != FileType::kDescriptorFile) {
    return Status::Corruption("names no MANIFEST: " + PrintableBytes(name));
  }
  *manifest_name = std::move(name);
  return Status::OK();
}

std::string PrintableBytes(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i++) {
    if (i == kMaxPrintableBytes) return out + "...";
    const char c = bytes[i];
    if (c >= 0x20 && c < 0x7f) {
      out += c;
      continue;
    }
    char escaped[5];
    std::snprintf(escaped, sizeof(escaped), "\\x%02x", static_cast<unsigned char>(c));
    out += escaped;
  }
  return out;
}

namespace {

// Steps 1-3 of SetCurrentFile: writes contents to tmp, syncs and closes it,
// renames it to current; deletes tmp on failure. If lingering is set
// (planted kBugReuseDeletePendingName), tmp's writer is left open, through
// the rename and the delete, for the caller to close.
Status ReplaceCurrent(FileSystem* fs, const std::string& tmp, const std::string& current,
                      const std::string& contents, StatsCounters* stats,
                      std::unique_ptr<WritableFileWriter>* lingering) {
  std::unique_ptr<WritableFile> file;
  FileOptions options;
  options.opened_by = "SetCurrentFile";
  Status s = fs->NewWritableFile(tmp, options, &file);
  if (s.ok()) {
    auto writer = std::make_unique<WritableFileWriter>(std::move(file), tmp, stats);
    s = writer->Append(contents);
    if (s.ok()) s = writer->Sync();
    if (lingering != nullptr) {
      *lingering = std::move(writer);
    } else {
      s = FirstError(s, writer->Close());
    }
  }
  if (s.ok()) s = fs->RenameFile(tmp, current);
  // The temp file is garbage; the caller reports s, not this cleanup.
  if (!s.ok()) fs->DeleteFile(tmp).PermitUncheckedError();
  return s;
}

}  // namespace

Status SetCurrentFile(FileSystem* fs, const std::string& dbname, uint64_t descriptor_number,
                      StatsCounters* stats, uint64_t planted_bugs) {
  const Status s = RenameCurrentFile(fs, dbname, descriptor_number, stats, planted_bugs);
  if (!s.ok()) return s;
  return SyncCurrentRename(fs, dbname, stats, planted_bugs);
}

Status RenameCurrentFile(FileSystem* fs, const std::string& dbname, uint64_t descriptor_number,
                         StatsCounters* stats, uint64_t planted_bugs) {
  const std::string contents = EncodeCurrentFile(descriptor_number);
  const std::string tmp = TempFileName(dbname, descriptor_number);
  const std::string current = CurrentFileName(dbname);
  Status s;
  if ((planted_bugs & kBugReuseDeletePendingName) != 0) {
    // The planted retry: both attempts' writers stay open until the end.
    std::unique_ptr<WritableFileWriter> first, second;
    s = ReplaceCurrent(fs, tmp, current, contents, stats, &first);
    if (!s.ok()) s = ReplaceCurrent(fs, tmp, current, contents, stats, &second);
    for (auto* writer : {&first, &second}) {
      if (*writer != nullptr) s = FirstError(s, (*writer)->Close());
    }
  } else {
    s = ReplaceCurrent(fs, tmp, current, contents, stats, nullptr);
  }
  return s;
}

Status SyncCurrentRename(FileSystem* fs, const std::string& dbname, StatsCounters* stats,
                         uint64_t planted_bugs) {
  if ((planted_bugs & kBugSkipDirSyncAfterCurrent) != 0) return Status::OK();
  if (!fs->SyncDirPersistsNames()) return SyncRenamedFile(fs, CurrentFileName(dbname), stats);
  const Status s = fs->SyncDir(dbname);
  if (s.ok()) SHALE_COUNT(stats, dir_syncs, 1);
  return s;
}

Status SyncRenamedFile(FileSystem* fs, const std::string& path, StatsCounters* stats) {
  std::unique_ptr<WritableFile> file;
  FileOptions options;
  options.opened_by = "SetCurrentFile";
  Status s = fs->ReopenWritableFile(path, options, &file);
  if (!s.ok()) return s;
  s = file->Sync();
  if (s.ok()) SHALE_COUNT(stats, file_syncs, 1);
  return FirstError(s, file->Close());
}

}  // namespace shale
