// The interposer: the pthread, clock, sleep, yield and assert entry points
// a hosted engine's library calls, defined in the executable so that the
// dynamic linker binds the library's calls here first (an executable's
// definitions precede every shared library's in the global scope).
//
// Each call is answered by the simulation (sim/foreign_sync.h) when it
// comes from a hosted library's code (hosted_code.h) on a simulated task's
// thread; every other call, Shale's own and its allocator's included, goes
// on to the C library's definition unchanged. Link this file into the
// executable itself (an object, not an archive member), never into a
// shared library.
//
// What is answered, and how:
//   pthread_mutex_lock/unlock      ForeignSync::Lock/Unlock
//   pthread_cond_wait/timedwait/   ForeignSync::Wait (deadlines converted
//     clockwait                    from the call's clock to simulated time)
//   pthread_cond_signal/broadcast  ForeignSync::Signal/Broadcast
//   pthread_cond_destroy           ForeignSync::Forget
//   clock_gettime, gettimeofday    simulated time (realtime clocks from
//                                  ForeignSync::kRealtimeEpochNanos)
//   nanosleep, sched_yield         a simulated sleep, a scheduling point
//   __assert_fail                  the run fails with the assertion's text
//                                  (the library is built with assertions on)
//   pthread_mutex_trylock          ForeignSync::TryLock
//   pthread_rwlock_rdlock/wrlock/  ForeignRwLocks (init and destroy forget
//     tryrdlock/trywrlock/unlock/  the lock at that address)
//     init/destroy
//   pthread_create/join/detach/    ForeignThreads: a hosted thread is a task,
//     self, setname_np/getname_np  its pthread_t a tagged task id
//   pthread_once                   ForeignThreads::Once
//   usleep, time                   a simulated sleep, simulated realtime
//   sched_getcpu, get_nprocs,      the simulated machine: one core, number 0
//     get_nprocs_conf, sysconf     (sysconf for its processor counts only;
//                                  other names go on to the C library)
//   __cxa_guard_acquire/release/   ForeignThreads' guards: a function-local
//     abort                        static another task is constructing is
//                                  a simulated wait
//   getpid                         the simulated process's id, a constant
//                                  (RocksDB writes it into its info log)
// Not answered (a hosted engine that needs them needs more here first):
// pthread_mutex_timedlock, timed and clock rwlock waits, pthread_exit and
// cancellation, clock_nanosleep. A hosted library that calls one of them on
// a simulated thread reaches the C library and may block the whole
// simulation.
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "hosted/hosted_code.h"
#include "sim/foreign_sync.h"

// glibc's own aliases of the mutex calls (exported at version GLIBC_2.2.5
// only, so bound by .symver): no dlsym is needed to reach them, so a lock
// taken inside dlsym or the allocator never recurses into resolving them.
extern "C" int shale_libc_mutex_lock(pthread_mutex_t* mutex);
extern "C" int shale_libc_mutex_unlock(pthread_mutex_t* mutex);
__asm__(".symver shale_libc_mutex_lock,__pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver shale_libc_mutex_unlock,__pthread_mutex_unlock@GLIBC_2.2.5");
extern "C" int __sched_yield(void);
extern "C" int __nanosleep(const struct timespec* request, struct timespec* remaining);

namespace {

using shale::sim::ForeignSync;

// Which calls the simulation answers. Only on a simulated task's thread
// (ForThisThread), and there:
//   * an unlock, or a wait, when the task holds the mutex in the
//     simulation: it took it there, so it gives it back there;
//   * a lock, signal, broadcast or destroy of an object the simulation
//     already knows (this incarnation), or any such call from hosted code;
//   * a clock read, sleep or yield from hosted code.
// The object rules matter because a call's return address names its
// caller's caller after a tail call: a hosted function ending in
// `jmp pthread_mutex_unlock` returns straight into Shale's code.
ForeignSync* Hosted(const void* pc) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  if (sync == nullptr || !shale::hosted::IsHostedCode(pc)) return nullptr;
  return sync;
}

ForeignSync* HostedMutex(const void* pc, const void* mutex) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  if (sync == nullptr) return nullptr;
  return sync->KnowsMutex(mutex) || shale::hosted::IsHostedCode(pc) ? sync : nullptr;
}

ForeignSync* HeldMutex(const void* mutex) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  return sync != nullptr && sync->Holds(mutex) ? sync : nullptr;
}

ForeignSync* HostedCond(const void* pc, const void* cond) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  if (sync == nullptr) return nullptr;
  return sync->KnowsCond(cond) || shale::hosted::IsHostedCode(pc) ? sync : nullptr;
}

// A call naming a tagged thread id, answered by the simulation wherever it
// comes from (the C library cannot take such an id), or nullopt: the C
// library's. Off a simulated task's thread the id's simulation is over and
// its thread will never run again, so the call succeeds and does nothing:
// process-wide objects of a hosted library (RocksDB's periodic-task timer)
// join such threads from their destructors at exit.
template <typename Fn>
std::optional<int> OnSimulatedThread(pthread_t thread, Fn call) {
  if (!shale::sim::ForeignThreads::IsSimulatedThreadId(thread)) return std::nullopt;
  ForeignSync* sync = ForeignSync::ForThisThread();
  return sync != nullptr ? call(sync->threads()) : 0;
}

// A read-write lock call, answered by the simulation for a hosted caller
// or a lock it already answers for, or nullopt: the C library's.
template <typename Fn>
std::optional<int> OnSimulatedRwLock(const void* pc, const void* rwlock, Fn call) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  if (sync == nullptr) return std::nullopt;
  shale::sim::ForeignRwLocks* locks = sync->rwlocks();
  if (!locks->Knows(rwlock) && !shale::hosted::IsHostedCode(pc)) return std::nullopt;
  return call(locks);
}

template <typename Fn>
Fn Next(const char* name, const char* version) {
  void* fn = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
  if (fn == nullptr) {
    std::fprintf(stderr, "shale interposer: cannot find the C library's %s\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(fn);
}

// libstdc++'s static guards, resolved on first use without a guarded
// static (resolving them through one would call them); a race between two
// first uses resolves the same addresses twice.
struct GuardFns {
  int (*acquire)(long long*);
  void (*release)(long long*);
  void (*abort)(long long*);
};

GuardFns guard_fns;  // set once guard_fns_ready is
std::atomic<bool> guard_fns_ready{false};

const GuardFns& GuardNext() {
  if (!guard_fns_ready.load(std::memory_order_acquire)) {
    guard_fns.acquire = Next<decltype(GuardFns::acquire)>("__cxa_guard_acquire", nullptr);
    guard_fns.release = Next<decltype(GuardFns::release)>("__cxa_guard_release", nullptr);
    guard_fns.abort = Next<decltype(GuardFns::abort)>("__cxa_guard_abort", nullptr);
    guard_fns_ready.store(true, std::memory_order_release);
  }
  return guard_fns;
}

// The simulation, if the calling task holds guard from its GuardAcquire.
ForeignSync* SimulatedGuard(const long long* guard) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  if (sync == nullptr) return nullptr;
  return sync->threads()->RunsGuard(reinterpret_cast<const uint64_t*>(guard)) ? sync : nullptr;
}

// The C library's definitions reached through dlsym, resolved once.
struct NextFns {
  int (*cond_wait)(pthread_cond_t*, pthread_mutex_t*);
  int (*cond_timedwait)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);
  int (*cond_clockwait)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);
  int (*cond_signal)(pthread_cond_t*);
  int (*cond_broadcast)(pthread_cond_t*);
  int (*cond_destroy)(pthread_cond_t*);
  int (*clock_gettime)(clockid_t, struct timespec*);
  int (*gettimeofday)(struct timeval*, void*);
  void (*assert_fail)(const char*, const char*, unsigned int, const char*);
  int (*mutex_trylock)(pthread_mutex_t*);
  int (*rwlock_init)(pthread_rwlock_t*, const pthread_rwlockattr_t*);
  int (*rwlock_destroy)(pthread_rwlock_t*);
  int (*rwlock_rdlock)(pthread_rwlock_t*);
  int (*rwlock_wrlock)(pthread_rwlock_t*);
  int (*rwlock_tryrdlock)(pthread_rwlock_t*);
  int (*rwlock_trywrlock)(pthread_rwlock_t*);
  int (*rwlock_unlock)(pthread_rwlock_t*);
  int (*create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  int (*join)(pthread_t, void**);
  int (*detach)(pthread_t);
  pthread_t (*self)();
  int (*setname)(pthread_t, const char*);
  int (*getname)(pthread_t, char*, size_t);
  int (*once)(pthread_once_t*, void (*)());
  int (*usleep)(useconds_t);
  time_t (*time)(time_t*);
  int (*sched_getcpu)();
  pid_t (*getpid)();
  int (*get_nprocs)();
  int (*get_nprocs_conf)();
  long (*sysconf)(int);
};

const NextFns& Next() {
  static const NextFns fns{
      Next<decltype(NextFns::cond_wait)>("pthread_cond_wait", "GLIBC_2.3.2"),
      Next<decltype(NextFns::cond_timedwait)>("pthread_cond_timedwait", "GLIBC_2.3.2"),
      Next<decltype(NextFns::cond_clockwait)>("pthread_cond_clockwait", nullptr),
      Next<decltype(NextFns::cond_signal)>("pthread_cond_signal", "GLIBC_2.3.2"),
      Next<decltype(NextFns::cond_broadcast)>("pthread_cond_broadcast", "GLIBC_2.3.2"),
      Next<decltype(NextFns::cond_destroy)>("pthread_cond_destroy", "GLIBC_2.3.2"),
      Next<decltype(NextFns::clock_gettime)>("clock_gettime", nullptr),
      Next<decltype(NextFns::gettimeofday)>("gettimeofday", nullptr),
      Next<decltype(NextFns::assert_fail)>("__assert_fail", nullptr),
      Next<decltype(NextFns::mutex_trylock)>("pthread_mutex_trylock", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_init)>("pthread_rwlock_init", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_destroy)>("pthread_rwlock_destroy", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_rdlock)>("pthread_rwlock_rdlock", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_wrlock)>("pthread_rwlock_wrlock", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_tryrdlock)>("pthread_rwlock_tryrdlock", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_trywrlock)>("pthread_rwlock_trywrlock", "GLIBC_2.34"),
      Next<decltype(NextFns::rwlock_unlock)>("pthread_rwlock_unlock", "GLIBC_2.34"),
      Next<decltype(NextFns::create)>("pthread_create", "GLIBC_2.34"),
      Next<decltype(NextFns::join)>("pthread_join", "GLIBC_2.34"),
      Next<decltype(NextFns::detach)>("pthread_detach", "GLIBC_2.34"),
      Next<decltype(NextFns::self)>("pthread_self", "GLIBC_2.2.5"),
      Next<decltype(NextFns::setname)>("pthread_setname_np", "GLIBC_2.34"),
      Next<decltype(NextFns::getname)>("pthread_getname_np", "GLIBC_2.34"),
      Next<decltype(NextFns::once)>("pthread_once", "GLIBC_2.34"),
      Next<decltype(NextFns::usleep)>("usleep", nullptr),
      Next<decltype(NextFns::time)>("time", nullptr),
      Next<decltype(NextFns::sched_getcpu)>("sched_getcpu", nullptr),
      Next<decltype(NextFns::getpid)>("getpid", nullptr),
      Next<decltype(NextFns::get_nprocs)>("get_nprocs", nullptr),
      Next<decltype(NextFns::get_nprocs_conf)>("get_nprocs_conf", nullptr),
      Next<decltype(NextFns::sysconf)>("sysconf", nullptr),
  };
  return fns;
}

// Resolved before main, while the program has one thread.
[[maybe_unused]] const NextFns& resolved_at_start = Next();

// The simulated machine's processors, as hosted code sees them: one core
// runs one task at a time, and a processor number or count read from the
// host (per-core arena shards, core-local statistics) would differ from
// machine to machine and from moment to moment.
constexpr int kSimulatedCores = 1;
constexpr int kSimulatedCoreNumber = 0;
// Every simulated process's id: a run's crashes and restarts keep it, as
// nothing a hosted engine does with its id (logs, cache names) needs it to
// change.
constexpr pid_t kSimulatedProcessId = 4242;

bool IsRealtime(clockid_t clock) {
  return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI;
}

uint64_t ToNanos(const struct timespec& ts) {
  if (ts.tv_sec < 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// An absolute time on clock as a simulated-clock deadline.
uint64_t SimDeadline(clockid_t clock, const struct timespec* abstime) {
  const uint64_t at = ToNanos(*abstime);
  if (!IsRealtime(clock)) return at;
  return at > ForeignSync::kRealtimeEpochNanos ? at - ForeignSync::kRealtimeEpochNanos : 0;
}

int TimedWait(ForeignSync* sync, pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
              const struct timespec* abstime) {
  if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1'000'000'000) return EINVAL;
  return sync->Wait(cond, mutex, SimDeadline(clock, abstime)) ? ETIMEDOUT : 0;
}

}  // namespace

extern "C" {

// Its presence tells hosted_code.cc that this executable carries the
// interposer (a weak reference there).
int shale_interposer_marker(void) { return 1; }

int pthread_mutex_lock(pthread_mutex_t* mutex) {
  if (ForeignSync* sync = HostedMutex(__builtin_return_address(0), mutex)) {
    sync->Lock(mutex);
    return 0;
  }
  return shale_libc_mutex_lock(mutex);
}

int pthread_mutex_unlock(pthread_mutex_t* mutex) {
  if (ForeignSync* sync = HeldMutex(mutex)) {
    sync->Unlock(mutex);
    return 0;
  }
  return shale_libc_mutex_unlock(mutex);
}

int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  if (ForeignSync* sync = HeldMutex(mutex)) {
    (void)sync->Wait(cond, mutex, std::numeric_limits<uint64_t>::max());
    return 0;
  }
  return Next().cond_wait(cond, mutex);
}

int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                           const struct timespec* abstime) {
  // A condition variable's default clock is the realtime one; one made
  // with another clock attribute is not told apart here.
  if (ForeignSync* sync = HeldMutex(mutex)) {
    return TimedWait(sync, cond, mutex, CLOCK_REALTIME, abstime);
  }
  return Next().cond_timedwait(cond, mutex, abstime);
}

int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                           const struct timespec* abstime) {
  if (ForeignSync* sync = HeldMutex(mutex)) {
    return TimedWait(sync, cond, mutex, clock, abstime);
  }
  return Next().cond_clockwait(cond, mutex, clock, abstime);
}

int pthread_cond_signal(pthread_cond_t* cond) {
  if (ForeignSync* sync = HostedCond(__builtin_return_address(0), cond)) {
    sync->Signal(cond);
    return 0;
  }
  return Next().cond_signal(cond);
}

int pthread_cond_broadcast(pthread_cond_t* cond) {
  if (ForeignSync* sync = HostedCond(__builtin_return_address(0), cond)) {
    sync->Broadcast(cond);
    return 0;
  }
  return Next().cond_broadcast(cond);
}

int pthread_cond_destroy(pthread_cond_t* cond) {
  // The C library's destroy runs either way: a condition variable the
  // simulation answered was never touched, and destroying it is a no-op.
  if (ForeignSync* sync = HostedCond(__builtin_return_address(0), cond)) sync->Forget(cond);
  return Next().cond_destroy(cond);
}

int clock_gettime(clockid_t clock, struct timespec* ts) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    uint64_t ns = sync->NowNanos();
    if (IsRealtime(clock)) ns += ForeignSync::kRealtimeEpochNanos;
    ts->tv_sec = static_cast<time_t>(ns / 1'000'000'000ull);
    ts->tv_nsec = static_cast<long>(ns % 1'000'000'000ull);
    return 0;
  }
  return Next().clock_gettime(clock, ts);
}

int gettimeofday(struct timeval* tv, void* tz) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    const uint64_t us = (sync->NowNanos() + ForeignSync::kRealtimeEpochNanos) / 1000;
    tv->tv_sec = static_cast<time_t>(us / 1'000'000ull);
    tv->tv_usec = static_cast<suseconds_t>(us % 1'000'000ull);
    return 0;
  }
  return Next().gettimeofday(tv, tz);
}

int nanosleep(const struct timespec* request, struct timespec* remaining) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    if (request->tv_nsec < 0 || request->tv_nsec >= 1'000'000'000) {
      errno = EINVAL;
      return -1;
    }
    sync->SleepNanos(ToNanos(*request));
    if (remaining != nullptr) *remaining = timespec{0, 0};
    return 0;
  }
  return __nanosleep(request, remaining);
}

int sched_yield(void) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    sync->Yield();
    return 0;
  }
  return __sched_yield();
}

void __assert_fail(const char* assertion, const char* file, unsigned int line,
                   const char* function) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    sync->AssertionFailed(std::string(file) + ":" + std::to_string(line) + ": " + function +
                          ": Assertion `" + assertion + "' failed.");
  }
  Next().assert_fail(assertion, file, line, function);
  std::abort();  // not reached: the C library's aborts
}

int pthread_mutex_trylock(pthread_mutex_t* mutex) {
  if (ForeignSync* sync = HostedMutex(__builtin_return_address(0), mutex)) {
    return sync->TryLock(mutex) ? 0 : EBUSY;
  }
  return Next().mutex_trylock(mutex);
}

int pthread_rwlock_init(pthread_rwlock_t* rwlock, const pthread_rwlockattr_t* attr) {
  (void)OnSimulatedRwLock(__builtin_return_address(0), rwlock, [&](auto* locks) {
    locks->Forget(rwlock);
    return 0;
  });
  return Next().rwlock_init(rwlock, attr);
}

int pthread_rwlock_destroy(pthread_rwlock_t* rwlock) {
  // As for condition variables: the C library's destroy of a lock it never
  // saw taken is a no-op.
  (void)OnSimulatedRwLock(__builtin_return_address(0), rwlock, [&](auto* locks) {
    locks->Forget(rwlock);
    return 0;
  });
  return Next().rwlock_destroy(rwlock);
}

int pthread_rwlock_rdlock(pthread_rwlock_t* rwlock) {
  const void* pc = __builtin_return_address(0);
  if (auto answer = OnSimulatedRwLock(
          pc, rwlock, [&](auto* locks) { return locks->Lock(rwlock, /*write=*/false); })) {
    return *answer;
  }
  return Next().rwlock_rdlock(rwlock);
}

int pthread_rwlock_wrlock(pthread_rwlock_t* rwlock) {
  const void* pc = __builtin_return_address(0);
  if (auto answer = OnSimulatedRwLock(
          pc, rwlock, [&](auto* locks) { return locks->Lock(rwlock, /*write=*/true); })) {
    return *answer;
  }
  return Next().rwlock_wrlock(rwlock);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t* rwlock) {
  const void* pc = __builtin_return_address(0);
  if (auto answer = OnSimulatedRwLock(
          pc, rwlock, [&](auto* locks) { return locks->TryLock(rwlock, /*write=*/false); })) {
    return *answer;
  }
  return Next().rwlock_tryrdlock(rwlock);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t* rwlock) {
  const void* pc = __builtin_return_address(0);
  if (auto answer = OnSimulatedRwLock(
          pc, rwlock, [&](auto* locks) { return locks->TryLock(rwlock, /*write=*/true); })) {
    return *answer;
  }
  return Next().rwlock_trywrlock(rwlock);
}

int pthread_rwlock_unlock(pthread_rwlock_t* rwlock) {
  ForeignSync* sync = ForeignSync::ForThisThread();
  if (sync != nullptr && sync->rwlocks()->Holds(rwlock)) return sync->rwlocks()->Unlock(rwlock);
  return Next().rwlock_unlock(rwlock);
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                   void* arg) {
  const void* pc = __builtin_return_address(0);
  ForeignSync* sync = Hosted(pc);
  if (sync != nullptr && !shale::hosted::PlantedCreateReachesCLibrary()) {
    int detach_state = PTHREAD_CREATE_JOINABLE;
    if (attr != nullptr) (void)pthread_attr_getdetachstate(attr, &detach_state);
    sync->threads()->Start(start, arg, detach_state == PTHREAD_CREATE_DETACHED, thread);
    return 0;
  }
  // A real thread started by hosted code from a task would run beside the
  // scheduler's one task: never let it start.
  if (shale::hosted::IsHostedCode(pc)) {
    if (ForeignSync* bound = ForeignSync::BoundToThisThread()) {
      bound->HostingGap("a hosted caller's pthread_create reached the C library");
    }
  }
  return Next().create(thread, attr, start, arg);
}

int pthread_join(pthread_t thread, void** result) {
  if (auto answer =
          OnSimulatedThread(thread, [&](auto* threads) { return threads->Join(thread, result); })) {
    return *answer;
  }
  return Next().join(thread, result);
}

int pthread_detach(pthread_t thread) {
  if (auto answer =
          OnSimulatedThread(thread, [&](auto* threads) { return threads->Detach(thread); })) {
    return *answer;
  }
  return Next().detach(thread);
}

pthread_t pthread_self(void) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    return static_cast<pthread_t>(sync->threads()->Self());
  }
  return Next().self();
}

int pthread_setname_np(pthread_t thread, const char* name) {
  if (auto answer = OnSimulatedThread(
          thread, [&](auto* threads) { return threads->SetName(thread, name); })) {
    return *answer;
  }
  return Next().setname(thread, name);
}

int pthread_getname_np(pthread_t thread, char* name, size_t length) {
  if (auto answer = OnSimulatedThread(
          thread, [&](auto* threads) { return threads->GetName(thread, name, length); })) {
    return *answer;
  }
  return Next().getname(thread, name, length);
}

// The static guards. libstdc++'s own are reached through pointers resolved
// here rather than through Next(), whose function-local static is itself
// guarded.
int __cxa_guard_acquire(long long* guard) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    return sync->threads()->GuardAcquire(reinterpret_cast<uint64_t*>(guard)) ? 1 : 0;
  }
  return GuardNext().acquire(guard);
}

void __cxa_guard_release(long long* guard) {
  if (ForeignSync* sync = SimulatedGuard(guard)) {
    return sync->threads()->GuardRelease(reinterpret_cast<uint64_t*>(guard));
  }
  GuardNext().release(guard);
}

void __cxa_guard_abort(long long* guard) {
  if (ForeignSync* sync = SimulatedGuard(guard)) {
    return sync->threads()->GuardAbort(reinterpret_cast<uint64_t*>(guard));
  }
  GuardNext().abort(guard);
}

int pthread_once(pthread_once_t* control, void (*routine)(void)) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    return sync->threads()->Once(control, routine);
  }
  return Next().once(control, routine);
}

int usleep(useconds_t micros) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    sync->SleepNanos(static_cast<uint64_t>(micros) * 1000);
    return 0;
  }
  return Next().usleep(micros);
}

time_t time(time_t* out) {
  if (ForeignSync* sync = Hosted(__builtin_return_address(0))) {
    const uint64_t ns = sync->NowNanos() + ForeignSync::kRealtimeEpochNanos;
    const auto seconds = static_cast<time_t>(ns / 1'000'000'000ull);
    if (out != nullptr) *out = seconds;
    return seconds;
  }
  return Next().time(out);
}

int sched_getcpu(void) {
  if (Hosted(__builtin_return_address(0)) != nullptr) return kSimulatedCoreNumber;
  return Next().sched_getcpu();
}

pid_t getpid(void) {
  if (Hosted(__builtin_return_address(0)) != nullptr) return kSimulatedProcessId;
  return Next().getpid();
}

int get_nprocs(void) {
  if (Hosted(__builtin_return_address(0)) != nullptr) return kSimulatedCores;
  return Next().get_nprocs();
}

int get_nprocs_conf(void) {
  if (Hosted(__builtin_return_address(0)) != nullptr) return kSimulatedCores;
  return Next().get_nprocs_conf();
}

long sysconf(int name) {
  if ((name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) &&
      Hosted(__builtin_return_address(0)) != nullptr) {
    return kSimulatedCores;
  }
  return Next().sysconf(name);
}

}  // extern "C"
