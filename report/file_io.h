// Whole-file reads and atomic whole-file writes for report files, so a
// report is never seen half-written: the contents go to a
// temporary file in the same directory which is then renamed over the path.
//
// Thread safety: stateless functions; an AtomicFile is used by one thread.
// Concurrent writers of one path race (last rename wins, each file whole).
// No exceptions escape.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace shale::report {

// A file written piece by piece to path.tmp.<pid> and renamed to path by
// Commit, for contents too large to build in memory. Destroyed uncommitted,
// it removes the temporary. Ownership: owns the temporary's FILE.
class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // REQUIRES: not open. False with one line in *error.
  [[nodiscard]] bool Open(const std::string& path, std::string* error);
  // Buffered; errors surface at the latest in Commit. REQUIRES: open.
  void Append(std::string_view text);
  // Appends the whole of the file at path. False with one line in *error.
  [[nodiscard]] bool AppendFileContents(const std::string& path, std::string* error);
  // Flushes, closes and renames over the path. False with one line in
  // *error (the temporary is removed).
  [[nodiscard]] bool Commit(std::string* error);

 private:
  void Abandon();

  std::string path_;
  std::string tmp_;
  std::FILE* file_ = nullptr;
};

// Writes path.tmp.<pid>, then renames it to path. On failure removes the
// temporary file and returns false with one line in *error.
[[nodiscard]] bool WriteFileAtomically(const std::string& path, const std::string& contents,
                                       std::string* error);

// Reads the whole of path into *contents (a limit of 1 GiB guards against
// reading a device by mistake).
[[nodiscard]] bool ReadWholeFile(const std::string& path, std::string* contents,
                                 std::string* error);

// Creates path and its parents; true if it exists as a directory after.
[[nodiscard]] bool MakeDirectories(const std::string& path, std::string* error);

}  // namespace shale::report
