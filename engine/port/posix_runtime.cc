// PosixClock and PosixRuntime (see posix_env.h): CLOCK_MONOTONIC and the C++
// standard thread library.
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "port/posix_env.h"
#include "util/check.h"

namespace shale {

uint64_t PosixClock::NowNanos() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {

class PosixMutex final : public Mutex {
 public:
  void Lock() override {
    mu_.lock();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
  }
  void Unlock() override {
    AssertHeld();
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    mu_.unlock();
  }
  void AssertHeld() override {
    SHALE_CHECK(owner_.load(std::memory_order_relaxed) == std::this_thread::get_id());
  }

 private:
  friend class PosixCondVar;
  std::mutex mu_;
  std::atomic<std::thread::id> owner_{};
};

class PosixCondVar final : public CondVar {
 public:
  PosixCondVar(PosixMutex* mu, Clock* clock) : mu_(mu), clock_(clock) {}

  void Wait() override {
    std::unique_lock<std::mutex> lock = Adopt();
    cv_.wait(lock);
    Release(&lock);
  }

  bool TimedWait(uint64_t deadline_nanos) override {
    const uint64_t now = clock_->NowNanos();
    if (deadline_nanos <= now) return true;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::nanoseconds(deadline_nanos - now);
    std::unique_lock<std::mutex> lock = Adopt();
    const bool timed_out = cv_.wait_until(lock, deadline) == std::cv_status::timeout;
    Release(&lock);
    return timed_out;
  }

  void Signal() override { cv_.notify_one(); }
  void SignalAll() override { cv_.notify_all(); }

 private:
  // Hands the held mutex to a unique_lock for the wait, and back after it.
  std::unique_lock<std::mutex> Adopt() {
    mu_->AssertHeld();
    mu_->owner_.store(std::thread::id(), std::memory_order_relaxed);
    return std::unique_lock<std::mutex>(mu_->mu_, std::adopt_lock);
  }
  void Release(std::unique_lock<std::mutex>* lock) {
    lock->release();
    mu_->owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
  }

  PosixMutex* const mu_;
  Clock* const clock_;
  std::condition_variable cv_;
};

class PosixThread final : public Thread {
 public:
  PosixThread(const std::string& name, std::function<void()> fn)
      : thread_([name, fn = std::move(fn)] {
          // Linux limits thread names to 15 bytes; the name is a debug aid.
          pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
          fn();
        }) {}
  // Destroying an unjoined thread is a bug; std::thread also terminates.
  ~PosixThread() override { SHALE_CHECK(!thread_.joinable()); }
  void Join() override { thread_.join(); }

 private:
  std::thread thread_;
};

}  // namespace

std::unique_ptr<Mutex> PosixRuntime::NewMutex() { return std::make_unique<PosixMutex>(); }

std::unique_ptr<CondVar> PosixRuntime::NewCondVar(Mutex* mu) {
  // One per write (each writer waits on its own): checked in debug builds only.
  SHALE_CHECK(dynamic_cast<PosixMutex*>(mu) != nullptr &&
              "CondVar needs a Mutex from the same Runtime");
  auto* posix_mu = static_cast<PosixMutex*>(mu);
  return std::make_unique<PosixCondVar>(posix_mu, clock_);
}

std::unique_ptr<Thread> PosixRuntime::StartThread(const std::string& name,
                                                  std::function<void()> fn) {
  return std::make_unique<PosixThread>(name, std::move(fn));
}

void PosixRuntime::SleepForMicroseconds(uint64_t micros) {
  std::this_thread::sleep_for(std::chrono::microseconds(micros));
}

namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

void PosixRuntime::AdviseHugePages(char* memory, size_t bytes) {
  SHALE_CHECK(reinterpret_cast<uintptr_t>(memory) % kHugePageBytes == 0);
  // A hint: where transparent huge pages are off (or not built in), the
  // call fails and the memory keeps its normal pages.
  (void)madvise(memory, bytes, MADV_HUGEPAGE);
}

bool PosixRuntime::SpinWhileEqual(const std::atomic<uint64_t>& word, uint64_t value,
                                  uint64_t max_micros) {
  // First about a microsecond of busy polling (RocksDB's 200 pauses), then
  // yields until max_micros. A yield that took longer than kSlowYield means
  // another thread wanted this core; after kMaxSlowYields of them the spin
  // gives up, so a waiter does not keep the thread it waits for (or a
  // flush) off a busy machine's cores.
  constexpr int kBusyPolls = 200;
  constexpr auto kSlowYield = std::chrono::microseconds(3);
  constexpr int kMaxSlowYields = 3;
  for (int i = 0; i < kBusyPolls; i++) {
    if (word.load(std::memory_order_acquire) != value) return true;
    CpuRelax();
  }
  using SteadyClock = std::chrono::steady_clock;
  const auto deadline = SteadyClock::now() + std::chrono::microseconds(max_micros);
  int slow_yields = 0;
  for (auto now = SteadyClock::now(); now < deadline;) {
    std::this_thread::yield();
    if (word.load(std::memory_order_acquire) != value) return true;
    const auto after = SteadyClock::now();
    slow_yields = after - now > kSlowYield ? slow_yields + 1 : 0;
    if (slow_yields >= kMaxSlowYields) break;
    now = after;
  }
  return word.load(std::memory_order_acquire) != value;
}

}  // namespace shale
