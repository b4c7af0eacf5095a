#include "util/check.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace shale {

namespace {
std::atomic<CheckFailedHook> check_failed_hook{nullptr};
}  // namespace

void SetCheckFailedHook(CheckFailedHook hook) { check_failed_hook.store(hook); }

void CheckFailed(const char* file, int line, const char* condition) {
  const std::string message =
      std::string("check failed at ") + file + ":" + std::to_string(line) + ": " + condition;
  if (CheckFailedHook hook = check_failed_hook.load()) hook(message.c_str());
  std::fprintf(stderr, "shale: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace shale
