// TempDir: a fresh, uniquely named directory, removed with its contents
// when destroyed. The default base is /tmp (a disk file system on CI, so
// O_DIRECT works there); InMemory() uses /dev/shm when it exists, for tests
// that sync a lot and do not need a disk.
// Test-only helper; not thread safe.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace shale_test {

class TempDir {
 public:
  explicit TempDir(const std::string& base = "/tmp") {
    std::string tmpl = base + "/shale_test_XXXXXX";
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  static std::string InMemoryBase() {
    std::error_code ec;
    return std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::string Child(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace shale_test
