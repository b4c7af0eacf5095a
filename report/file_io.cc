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

bool WriteFileAtomically(const std::string& path, const std::string& contents,
                         std::string* error) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Fail(error, "cannot create " + tmp);
    f.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    f.flush();
    if (!f) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return Fail(error, "cannot write " + tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return Fail(error, "cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
  return true;
}

bool ReadWholeFile(const std::string& path, std::string* contents, std::string* error) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return Fail(error, "cannot read " + path + ": no such file");
  if (!std::filesystem::is_regular_file(status)) return Fail(error, "cannot read " + path + ": not a regular file");
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxReadBytes) return Fail(error, "cannot read " + path + ": too large or unreadable");
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
