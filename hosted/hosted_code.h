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

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "shale/status.h"

namespace shale::hosted {

// What a registered library is to the hosted engine: its own code, or a
// runtime it calls through (libstdc++'s condition_variable), whose calls
// the interposer must see too but whose crashes are not the engine's alone.
enum class CodeRole { kEngine, kRuntime };

// Adds the executable segments of every loaded shared object whose path
// contains name_fragment (e.g. "libleveldb.so"). OK if already registered.
// NotFound if no loaded object matches; InvalidArgument past the limit of
// registered ranges.
[[nodiscard]] Status RegisterHostedLibrary(const std::string& name_fragment,
                                           CodeRole role = CodeRole::kEngine);

// The file name (no directory, symbolic links resolved, e.g.
// "libleveldb.so.1d.23") of the first loaded shared object whose path
// contains name_fragment; "" if none is loaded.
std::string LoadedLibraryFile(const std::string& name_fragment);

// Whether pc lies in a registered library's code.
bool IsHostedCode(const void* pc);

// Makes a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE) raised in a
// library registered as kEngine print to stderr, before the process dies of
// it, "engine crashed: SIGSEGV in libleveldb.so.1d+0x16bf0 (address 0x4)"
// and, mid-simulation, "engine crash after tape bytes: N" (what the run had
// read of its tape), both after a line "engine crash operation marks: M1
// M2 ..." (where each operation's draws began, for a shrinker; it can be
// long, so a reader keeping only the tail still has the two others). The
// campaign's parent
// reads those lines and reports the seed as the engine's crash, with where
// it happened, not as a crash of Shale. A signal raised elsewhere is left
// as it was. Idempotent; call once hosting is set up. Replaces any handler
// installed for those signals.
void ReportHostedCrashes();

// Planted bug, for the hosting layer's own tests: while set, the
// interposer hands a hosted caller's pthread_create to the C library, as
// an interposer missing that entry point would. The check that such a
// call never reaches the C library from a simulated task (the run fails
// as "simulation") must catch it. Process-wide; off unless set.
void SetPlantedCreateReachesCLibrary(bool planted);
bool PlantedCreateReachesCLibrary();

// What every hosted engine's preparation starts with: the interposer is in
// effect (InterposerInEffect), the engine's library (a name fragment, e.g.
// "librocksdb.so") is registered as kEngine and libstdc++ as kRuntime, and
// its crashes are reported (ReportHostedCrashes). REQUIRES: outside any
// simulation.
[[nodiscard]] Status PrepareHostedLibrary(const std::string& library);

// One hosted engine's once-per-process preparation: Prepare runs prepare
// the first time it is called, and every call returns that first answer;
// ready() says whether it succeeded. Thread safety: safe from any thread.
class HostingPreparation {
 public:
  [[nodiscard]] Status Prepare(const std::function<Status()>& prepare);
  bool ready() const { return ready_.load(std::memory_order_acquire); }

 private:
  std::once_flag once_;
  Status status_;  // written once, under once_
  std::atomic<bool> ready_{false};
};

// OK if this executable carries the interposer and the dynamic linker
// resolves the pthread and clock symbols to it (so a hosted library's calls
// reach it); otherwise why not. A program that hosts an engine links
// hosted/interposer.cc into the executable itself.
[[nodiscard]] Status InterposerInEffect();

}  // namespace shale::hosted
