// ToyThreads: the thread primitives an engine Shale did not write may use
// past its Env, exercised from a library of their own (libshale_toy_kv.so)
// through the C++ standard library, the way RocksDB uses them: std::thread
// (joined and detached), std::shared_mutex, std::mutex::try_lock,
// std::call_once, function-local statics, usleep, time and the steady clock. The hosted tests run
// it on the simulator, where the interposer must answer every one of these
// (a call that reached the C library would hang the run or let two threads
// into a critical section).
//
// Thread safety: Run and RunReadThenWrite each start and join their own
// threads; call each from one thread. The Leftovers calls share theirs.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace toythreads {

struct Report {
  int reads = 0;
  int torn_reads = 0;  // a reader saw the two halves of a pair differ
  int writes = 0;
  int once_runs = 0;              // times the call_once routine ran (of 4 callers)
  bool try_lock_refused = false;  // try_lock while another thread held it
  bool detached_finished = false;
  std::vector<uint64_t> thread_ids;  // pthread_self of the caller, then each thread
  bool ids_match_std = true;         // std::this_thread::get_id agreed with each
  int64_t steady_slept_ns = 0;       // the steady clock across usleep(1000)
  int64_t time_seconds = 0;          // time(nullptr) at the end
  // The machine as the library sees it: sched_getcpu,
  // std::thread::hardware_concurrency, sysconf(_SC_NPROCESSORS_ONLN).
  int cpu = -1;
  unsigned hardware_threads = 0;
  long online_processors = 0;
  int pid = 0;  // getpid()
};

// Two writers and two readers on a pair under a std::shared_mutex, each for
// rounds rounds (a writer yields between its two halves), then the other
// primitives once each.
Report Run(int rounds);

// Two threads reach a function-local static at once, the first still in
// its constructor (which sleeps) when the second arrives. Returns how many
// times the static has been constructed in this process (1), and in
// *shared whether both threads read the same object.
int StaticFromTwo(bool* shared);

// Takes a std::shared_mutex for reading and then for writing on one
// thread: waits for good, as with glibc (the simulation reports a deadlock).
void RunReadThenWrite();

// What a process leaves behind when it dies mid-way: a lock its thread
// held, a call_once routine cut short, a thread nobody joined. The caller
// starts each, crashes the process, and looks again from the next one.
// Never destroyed (a dead process's memory is only abandoned).
struct Leftovers {
  std::shared_mutex lock;
  std::once_flag once;
  std::atomic<int> once_runs{0};
  std::thread* joinable = nullptr;
};
// Starts three threads that never return: one holding lock for writing,
// one inside once's routine (after counting the run), one plain; waits
// until the first two are where they stay.
void StartLeftovers(Leftovers* leftovers);
// From after the crash: whether lock can be taken for writing (try_lock),
// and once's routine run (it returns at once this time).
bool TakeLeftLock(Leftovers* leftovers);
void CallLeftOnce(Leftovers* leftovers);
// Joins the plain thread.
void JoinLeftThread(Leftovers* leftovers);

}  // namespace toythreads
