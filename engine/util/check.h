// Always-on checks.
//
// SHALE_CHECK(condition) is compiled into every build type, Release
// included. It is for cheap invariants of the engine's own state, whose
// failure can only be a bug in the engine: sequence numbers that only grow,
// levels whose files are sorted and disjoint, a block that is well formed
// before it is written. Input the engine does not control (a damaged file,
// a bad argument) never reaches a SHALE_CHECK; it gets a Status.
//
// On failure it calls the hook (SetCheckFailedHook) with "check failed at
// FILE:LINE: CONDITION": a simulator ends the run there with that failure,
// which names the seed. Without a hook, or if the hook returns, it writes
// "shale: " and the message to stderr and aborts. A check too costly for a
// release build (a walk over a whole structure on a hot path) goes under
// #ifndef NDEBUG.
//
// Thread safety: any thread.
#pragma once

namespace shale {

// Reports a failed SHALE_CHECK and aborts. Called only by the macro.
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);

// Where a failed check reports first. The hook ends the failing thread's
// work for good (it does not return) or returns to let CheckFailed abort.
// Null: none. Thread safety: any thread; set it before checks can fail.
using CheckFailedHook = void (*)(const char* message);
void SetCheckFailedHook(CheckFailedHook hook);

}  // namespace shale

#define SHALE_CHECK(condition)                       \
  (__builtin_expect(static_cast<bool>(condition), 1) \
       ? static_cast<void>(0)                        \
       : ::shale::CheckFailed(__FILE__, __LINE__, #condition))
