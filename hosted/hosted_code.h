// The hosting layer's code registry: which shared libraries hold the code
// of an engine Shale did not write (a "hosted" engine), so that the
// interposer (interposer.cc) answers their pthread and clock calls from the
// simulation, and lets every other caller's (Shale's own, the allocator's)
// through to the C library.
//
// A call is simulated only when both hold: the calling thread runs a task of
// a simulation with os_thread_tasks (sim/foreign_sync.h), and the call's
// return address lies in the executable code of a registered library.
//
// Thread safety: RegisterHostedLibrary may be called from any thread, at any
// time (it takes a lock and only ever adds ranges); IsHostedCode is
// lock-free.
#pragma once

#include <string>

#include "shale/status.h"

namespace shale::hosted {

// Adds the executable segments of every loaded shared object whose path
// contains name_fragment (e.g. "libleveldb.so"). OK if already registered.
// NotFound if no loaded object matches; InvalidArgument past the limit of
// registered ranges.
[[nodiscard]] Status RegisterHostedLibrary(const std::string& name_fragment);

// Whether pc lies in a registered library's code.
bool IsHostedCode(const void* pc);

// OK if this executable carries the interposer and the dynamic linker
// resolves the pthread and clock symbols to it (so a hosted library's calls
// reach it); otherwise why not. A program that hosts an engine links
// hosted/interposer.cc into the executable itself.
[[nodiscard]] Status InterposerInEffect();

}  // namespace shale::hosted
