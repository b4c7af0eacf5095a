// Status: the result of every fallible engine call.
//
// Shale keeps RocksDB's status codes (OK, NotFound, Corruption, IOError, ...)
// because every checker and every user of the engine reasons in them. absl's
// canonical codes do not separate Corruption from IOError or Busy from
// TryAgain, so Shale carries its own small value type instead of absl::Status.
//
// A Status is a value: copyable, movable, no exceptions. It is [[nodiscard]]:
// ignoring one is a compile error under -Werror; a deliberately swallowed
// error is written out as `status.PermitUncheckedError()`.
//
// Thread safety: a Status is immutable after construction; concurrent const
// access is safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shale {

class [[nodiscard]] Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound = 1,
    kCorruption = 2,
    kNotSupported = 3,
    kInvalidArgument = 4,
    kIOError = 5,
    kIncomplete = 7,
    kShutdownInProgress = 8,
    kTimedOut = 9,
    kAborted = 10,
    kBusy = 11,
    kTryAgain = 13,
  };
  // Finer detail for IOError, as RocksDB's SubCode.
  enum class SubCode : uint8_t {
    kNone = 0,
    kNoSpace = 4,  // ENOSPC
    kPathNotFound = 9,
  };

  Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg = {}, std::string_view msg2 = {}) {
    return Status(Code::kNotFound, msg, msg2);
  }
  static Status Corruption(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kCorruption, msg, msg2);
  }
  static Status NotSupported(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kNotSupported, msg, msg2);
  }
  static Status InvalidArgument(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kInvalidArgument, msg, msg2);
  }
  static Status IOError(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIOError, msg, msg2);
  }
  static Status NoSpace(std::string_view msg, std::string_view msg2 = {}) {
    Status s(Code::kIOError, msg, msg2);
    s.subcode_ = SubCode::kNoSpace;
    return s;
  }
  static Status PathNotFound(std::string_view msg, std::string_view msg2 = {}) {
    Status s(Code::kIOError, msg, msg2);
    s.subcode_ = SubCode::kPathNotFound;
    return s;
  }
  static Status Incomplete(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIncomplete, msg, msg2);
  }
  static Status ShutdownInProgress(std::string_view msg = {}) {
    return Status(Code::kShutdownInProgress, msg, {});
  }
  static Status TimedOut(std::string_view msg = {}) { return Status(Code::kTimedOut, msg, {}); }
  static Status Aborted(std::string_view msg = {}) { return Status(Code::kAborted, msg, {}); }
  static Status Busy(std::string_view msg = {}) { return Status(Code::kBusy, msg, {}); }
  static Status TryAgain(std::string_view msg = {}) { return Status(Code::kTryAgain, msg, {}); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsNoSpace() const { return code_ == Code::kIOError && subcode_ == SubCode::kNoSpace; }
  bool IsPathNotFound() const {
    return code_ == Code::kIOError && subcode_ == SubCode::kPathNotFound;
  }
  bool IsIncomplete() const { return code_ == Code::kIncomplete; }
  bool IsShutdownInProgress() const { return code_ == Code::kShutdownInProgress; }
  bool IsTimedOut() const { return code_ == Code::kTimedOut; }
  bool IsAborted() const { return code_ == Code::kAborted; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsTryAgain() const { return code_ == Code::kTryAgain; }

  Code code() const { return code_; }
  SubCode subcode() const { return subcode_; }
  const std::string& message() const { return msg_; }

  // "OK", or "<Code name>: <message>".
  std::string ToString() const;

  // Marks a status as deliberately ignored. Use only where dropping the
  // error is correct, and say why next to the call.
  void PermitUncheckedError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.subcode_ == b.subcode_ && a.msg_ == b.msg_;
  }

 private:
  Status(Code code, std::string_view msg, std::string_view msg2);

  Code code_ = Code::kOk;
  SubCode subcode_ = SubCode::kNone;
  std::string msg_;
};

// Returns the first non-OK status of `a` and `b` (a wins ties).
inline Status FirstError(const Status& a, const Status& b) { return a.ok() ? b : a; }

}  // namespace shale
