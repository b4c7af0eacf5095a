// Env::Default(): the real backend, built once and never destroyed (so it
// outlives every DB and every static destructor that might still use it).
#include "port/posix_env.h"

namespace shale {

Env* Env::Default() {
  static Env* const env = [] {
    auto* clock = new PosixClock;
    return new Env(new PosixFileSystem, clock, new PosixRuntime(clock));
  }();
  return env;
}

}  // namespace shale
