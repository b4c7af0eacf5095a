#include "util/check.h"

#include <cstdio>
#include <cstdlib>

namespace shale {

void CheckFailed(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "shale: check failed at %s:%d: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace shale
