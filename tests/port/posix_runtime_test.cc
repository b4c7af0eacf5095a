// PosixClock and PosixRuntime: real threads, locks and waits.
#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "port/posix_env.h"
#include "shale/env.h"

using namespace shale;

TEST_CASE("clock is monotonic and advances across a sleep", "[port][clock]") {
  Env* env = Env::Default();
  uint64_t prev = env->clock()->NowNanos();
  for (int i = 0; i < 1000; i++) {
    const uint64_t now = env->clock()->NowNanos();
    REQUIRE(now >= prev);
    prev = now;
  }
  env->runtime()->SleepForMicroseconds(2000);
  REQUIRE(env->clock()->NowNanos() - prev >= 2000000u);
  const uint64_t before = env->clock()->NowNanos() / 1000;
  const uint64_t micros = env->clock()->NowMicros();
  REQUIRE(micros >= before);
  REQUIRE(micros <= env->clock()->NowNanos() / 1000);
}

TEST_CASE("mutex serialises threads", "[port][runtime]") {
  Runtime* rt = Env::Default()->runtime();
  std::unique_ptr<Mutex> mu = rt->NewMutex();
  int counter = 0;
  std::vector<std::unique_ptr<Thread>> threads;
  for (int t = 0; t < 4; t++) {
    threads.push_back(rt->StartThread("adder", [&] {
      for (int i = 0; i < 10000; i++) {
        mu->Lock();
        mu->AssertHeld();
        counter++;
        mu->Unlock();
      }
    }));
  }
  for (auto& t : threads) t->Join();
  REQUIRE(counter == 40000);
}

TEST_CASE("condvar hands a value between threads", "[port][runtime]") {
  Runtime* rt = Env::Default()->runtime();
  std::unique_ptr<Mutex> mu = rt->NewMutex();
  std::unique_ptr<CondVar> cv = rt->NewCondVar(mu.get());
  int stage = 0;
  std::unique_ptr<Thread> worker = rt->StartThread("worker", [&] {
    mu->Lock();
    while (stage != 1) cv->Wait();
    stage = 2;
    cv->SignalAll();
    mu->Unlock();
  });
  mu->Lock();
  stage = 1;
  cv->Signal();
  while (stage != 2) cv->Wait();
  mu->AssertHeld();
  mu->Unlock();
  worker->Join();
  REQUIRE(stage == 2);
}

TEST_CASE("TimedWait times out at the Env clock's deadline", "[port][runtime]") {
  Env* env = Env::Default();
  std::unique_ptr<Mutex> mu = env->runtime()->NewMutex();
  std::unique_ptr<CondVar> cv = env->runtime()->NewCondVar(mu.get());
  mu->Lock();
  const uint64_t start = env->clock()->NowNanos();
  const uint64_t deadline = start + 5000000;  // 5 ms
  bool timed_out = false;
  while (!timed_out && env->clock()->NowNanos() < deadline) timed_out = cv->TimedWait(deadline);
  REQUIRE(timed_out);
  REQUIRE(env->clock()->NowNanos() >= deadline);
  REQUIRE(cv->TimedWait(start));  // a past deadline times out at once
  mu->Unlock();
}

TEST_CASE("TimedWait returns false when signalled", "[port][runtime]") {
  Env* env = Env::Default();
  Runtime* rt = env->runtime();
  std::unique_ptr<Mutex> mu = rt->NewMutex();
  std::unique_ptr<CondVar> cv = rt->NewCondVar(mu.get());
  bool ready = false;
  std::unique_ptr<Thread> signaller = rt->StartThread("signaller", [&] {
    mu->Lock();
    ready = true;
    cv->Signal();
    mu->Unlock();
  });
  const uint64_t deadline = env->clock()->NowNanos() + 30ull * 1000000000ull;  // 30 s
  mu->Lock();
  bool timed_out = false;
  while (!ready && !timed_out) timed_out = cv->TimedWait(deadline);
  mu->Unlock();
  signaller->Join();
  REQUIRE_FALSE(timed_out);
  REQUIRE(ready);
}

TEST_CASE("yield and fault points are free no-ops", "[port][runtime]") {
  Runtime* rt = Env::Default()->runtime();
  rt->YieldPoint("test.yield");
  REQUIRE_FALSE(rt->FaultPoint("test.fault"));
}

TEST_CASE("SpinWhileEqual returns once the word changes, and false if it never does",
          "[port][runtime]") {
  Runtime* rt = Env::Default()->runtime();
  REQUIRE(rt->CanSpin());
  std::atomic<uint64_t> word{7};
  REQUIRE(rt->SpinWhileEqual(word, 6, 1000));  // already different
  REQUIRE_FALSE(rt->SpinWhileEqual(word, 7, 0));
  REQUIRE_FALSE(rt->SpinWhileEqual(word, 7, 200));
  // Another thread changes it while this one spins. A spin may give up
  // early (the core was busy), so spin until it reports the change.
  std::unique_ptr<Thread> changer = rt->StartThread("changer", [&] {
    rt->SleepForMicroseconds(50);
    word.store(8, std::memory_order_release);
  });
  while (!rt->SpinWhileEqual(word, 7, 100000)) {
  }
  REQUIRE(word.load() == 8);
  changer->Join();
}
