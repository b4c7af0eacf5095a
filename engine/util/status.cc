#include "shale/status.h"

namespace shale {

Status::Status(Code code, std::string_view msg, std::string_view msg2) : code_(code) {
  msg_.assign(msg.data(), msg.size());
  if (!msg2.empty()) {
    msg_.append(": ");
    msg_.append(msg2.data(), msg2.size());
  }
}

static const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return "OK";
    case Status::Code::kNotFound:
      return "NotFound";
    case Status::Code::kCorruption:
      return "Corruption";
    case Status::Code::kNotSupported:
      return "Not implemented";
    case Status::Code::kInvalidArgument:
      return "Invalid argument";
    case Status::Code::kIOError:
      return "IO error";
    case Status::Code::kIncomplete:
      return "Result incomplete";
    case Status::Code::kShutdownInProgress:
      return "Shutdown in progress";
    case Status::Code::kTimedOut:
      return "Operation timed out";
    case Status::Code::kAborted:
      return "Operation aborted";
    case Status::Code::kBusy:
      return "Resource busy";
    case Status::Code::kTryAgain:
      return "Operation failed. Try again.";
  }
  return "Unknown code";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string result = CodeName(code_);
  if (subcode_ == SubCode::kNoSpace) result += " (No space left on device)";
  if (subcode_ == SubCode::kPathNotFound) result += " (No such file or directory)";
  if (!msg_.empty()) {
    result += ": ";
    result += msg_;
  }
  return result;
}

}  // namespace shale
