#include "report/report_stream.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace shale::report {
namespace {

bool Fail(std::string* error, const std::string& what, const std::string& path) {
  *error = "cannot " + what + " " + path + ": " + std::strerror(errno);
  return false;
}

// Blocks every catchable signal for its lifetime (one thread: the process).
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &old_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

}  // namespace

ReportStream::~ReportStream() {
  if (fd_ >= 0) ::close(fd_);
}

bool ReportStream::Open(const std::string& path, std::string_view head, std::string_view tail,
                        std::string* error) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  fd_ = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return Fail(error, "create", tmp);
  path_ = tmp;
  bool ok = WriteAt(0, std::string(head) + std::string(tail), error);
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0)
    ok = Fail(error, "rename " + tmp + " to", path);
  if (!ok) {
    ::close(fd_);
    fd_ = -1;
    ::unlink(tmp.c_str());
    return false;
  }
  path_ = path;
  head_size_ = head.size();
  tail_offset_ = head.size();
  end_offset_ = head.size() + tail.size();
  items_ = 0;
  return true;
}

bool ReportStream::Add(std::string_view item, std::string_view tail, std::string* error) {
  std::string text = items_ == 0 ? "\n" : ",\n";
  text.append(item);
  const uint64_t item_end = tail_offset_ + text.size();
  text.append(tail);
  if (!ReplaceTail(std::move(text), error)) return false;
  tail_offset_ = item_end;
  ++items_;
  return true;
}

bool ReportStream::Overwrite(uint64_t offset, std::string_view text, std::string* error) {
  if (offset + text.size() > head_size_) {
    *error = "cannot write " + path_ + ": overwrite outside the head";
    return false;
  }
  return WriteAt(offset, text, error);
}

bool ReportStream::Finish(std::string_view tail, std::string* error) {
  bool ok = ReplaceTail(std::string(tail), error);
  if (ok && ::ftruncate(fd_, static_cast<off_t>(tail_offset_ + tail.size())) != 0) {
    ok = Fail(error, "truncate", path_);
  }
  ::close(fd_);
  fd_ = -1;
  return ok;
}

bool ReportStream::ReplaceTail(std::string text, std::string* error) {
  const uint64_t end = tail_offset_ + text.size();
  if (end < end_offset_) text.append(end_offset_ - end, ' ');
  if (!WriteAt(tail_offset_, text, error)) return false;
  end_offset_ = tail_offset_ + text.size();
  return true;
}

bool ReportStream::WriteAt(uint64_t offset, std::string_view text, std::string* error) {
  const SignalsBlocked blocked;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n =
        ::pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(error, "write", path_);
    if (n == 0) {
      errno = EIO;
      return Fail(error, "write", path_);
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace shale::report
