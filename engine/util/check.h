// Always-on checks.
//
// SHALE_CHECK(condition) is compiled into every build type, Release
// included. It is for cheap invariants of the engine's own state, whose
// failure can only be a bug in the engine: sequence numbers that only grow,
// levels whose files are sorted and disjoint, a block that is well formed
// before it is written. Input the engine does not control (a damaged file,
// a bad argument) never reaches a SHALE_CHECK; it gets a Status.
//
// On failure it writes "shale: check failed at FILE:LINE: CONDITION" to
// stderr and aborts, so a campaign's worker dies with the message and the
// seed is reported as a crash. assert() stays for checks too costly for a
// release build (a walk over a whole structure on a hot path).
//
// Thread safety: any thread.
#pragma once

namespace shale {

// Reports a failed SHALE_CHECK and aborts. Called only by the macro.
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);

}  // namespace shale

#define SHALE_CHECK(condition)                       \
  (__builtin_expect(static_cast<bool>(condition), 1) \
       ? static_cast<void>(0)                        \
       : ::shale::CheckFailed(__FILE__, __LINE__, #condition))
