#include "report/file_io.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace shale::report {
namespace {

constexpr uintmax_t kMaxReadBytes = uintmax_t{1} << 30;

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

}  // namespace

AtomicFile::~AtomicFile() { Abandon(); }

void AtomicFile::Abandon() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ignored;
  std::filesystem::remove(tmp_, ignored);
}

bool AtomicFile::Open(const std::string& path, std::string* error) {
  path_ = path;
  tmp_ = path + ".tmp." + std::to_string(::getpid());
  file_ = std::fopen(tmp_.c_str(), "wbe");
  if (file_ == nullptr) return Fail(error, "cannot create " + tmp_);
  return true;
}

void AtomicFile::Append(std::string_view text) {
  (void)std::fwrite(text.data(), 1, text.size(), file_);
}

bool AtomicFile::AppendFileContents(const std::string& path, std::string* error) {
  std::FILE* in = std::fopen(path.c_str(), "rbe");
  if (in == nullptr) return Fail(error, "cannot read " + path);
  char chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), in)) > 0) Append(std::string_view(chunk, n));
  const bool ok = std::ferror(in) == 0;
  std::fclose(in);
  return ok || Fail(error, "cannot read " + path);
}

bool AtomicFile::Commit(std::string* error) {
  const bool written = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  std::error_code ec;
  if (written && closed) std::filesystem::rename(tmp_, path_, ec);
  if (written && closed && !ec) return true;
  std::error_code ignored;
  std::filesystem::remove(tmp_, ignored);
  if (ec) return Fail(error, "cannot rename " + tmp_ + " to " + path_ + ": " + ec.message());
  return Fail(error, "cannot write " + tmp_);
}

bool WriteFileAtomically(const std::string& path, const std::string& contents, std::string* error) {
  AtomicFile file;
  if (!file.Open(path, error)) return false;
  file.Append(contents);
  return file.Commit(error);
}

bool ReadWholeFile(const std::string& path, std::string* contents, std::string* error) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    return Fail(error, "cannot read " + path + ": no such file");
  if (!std::filesystem::is_regular_file(status))
    return Fail(error, "cannot read " + path + ": not a regular file");
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxReadBytes)
    return Fail(error, "cannot read " + path + ": too large or unreadable");
  std::ifstream f(path, std::ios::binary);
  if (!f) return Fail(error, "cannot read " + path + ": permission denied or unreadable");
  std::ostringstream buf;
  buf << f.rdbuf();
  if (f.bad()) return Fail(error, "cannot read " + path);
  *contents = buf.str();
  return true;
}

bool MakeDirectories(const std::string& path, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (std::filesystem::is_directory(path)) return true;
  return Fail(error, "cannot create directory " + path + (ec ? ": " + ec.message() : ""));
}

}  // namespace shale::report
