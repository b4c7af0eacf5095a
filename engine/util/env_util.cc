// File helpers over the seam's FileSystem.
#include <memory>

#include "shale/env.h"

namespace shale {

Status ReadFileToString(FileSystem* fs, const std::string& path, std::string* data) {
  data->clear();
  std::unique_ptr<SequentialFile> file;
  Status s = fs->NewSequentialFile(path, FileOptions(), &file);
  if (!s.ok()) return s;
  constexpr size_t kBufferBytes = 8192;
  std::unique_ptr<char[]> space(new char[kBufferBytes]);
  while (true) {
    Slice fragment;
    s = file->Read(kBufferBytes, &fragment, space.get());
    if (!s.ok()) break;
    data->append(fragment.data(), fragment.size());
    if (fragment.empty()) break;
  }
  return s;
}

Status WriteStringToFile(FileSystem* fs, const Slice& data, const std::string& path, bool sync) {
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, FileOptions(), &file);
  if (!s.ok()) return s;
  s = file->Append(data);
  if (s.ok() && sync) s = file->Sync();
  Status close = file->Close();
  s = FirstError(s, close);
  if (!s.ok()) {
    // The partial file is useless; the caller reports s, not this delete.
    fs->DeleteFile(path).PermitUncheckedError();
  }
  return s;
}

}  // namespace shale
