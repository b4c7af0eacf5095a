// ToyThreads: see toy_threads.h.
#include "toy_threads.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace toythreads {

namespace {

uint64_t SelfId(Report* report) {
  const auto self = static_cast<uint64_t>(pthread_self());
  if (std::this_thread::get_id() != std::thread::id(static_cast<pthread_t>(self))) {
    report->ids_match_std = false;
  }
  return self;
}

void ReadersAndWriters(int rounds, Report* report) {
  std::shared_mutex mu;
  int first = 0, second = 0;
  std::mutex report_mu;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      const uint64_t id = SelfId(report);
      for (int i = 0; i < rounds; i++) {
        if (t % 2 == 0) {
          std::unique_lock lock(mu);
          first = i;
          std::this_thread::yield();
          second = i;
        } else {
          std::shared_lock lock(mu);
          const bool torn = first != second;
          std::lock_guard guard(report_mu);
          report->torn_reads += torn ? 1 : 0;
          report->reads++;
        }
      }
      std::lock_guard guard(report_mu);
      if (t % 2 == 0) report->writes += rounds;
      report->thread_ids.push_back(id);
    });
  }
  for (auto& thread : threads) thread.join();
}

void OnceFromFour(Report* report) {
  std::once_flag flag;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&] {
      std::call_once(flag, [&] {
        usleep(100);  // the other callers wait meanwhile
        report->once_runs++;
      });
    });
  }
  for (auto& thread : threads) thread.join();
}

void TryLockWhileHeld(Report* report) {
  std::mutex mu;
  std::thread holder([&] {
    std::lock_guard lock(mu);
    usleep(1000);
  });
  usleep(100);
  if (mu.try_lock()) {
    mu.unlock();
  } else {
    report->try_lock_refused = true;
  }
  holder.join();
}

void DetachedThread(Report* report) {
  std::atomic<bool> done{false};
  std::thread([&] {
    usleep(500);
    done = true;
  }).detach();
  for (int i = 0; i < 100 && !done; i++) usleep(100);
  report->detached_finished = done;
}

std::atomic<int> slow_static_constructions{0};

struct SlowStatic {
  SlowStatic() {
    slow_static_constructions++;
    usleep(200);  // the other thread arrives meanwhile
  }
};

const SlowStatic* TheSlowStatic() {
  static const SlowStatic instance;
  return &instance;
}

}  // namespace

int StaticFromTwo(bool* shared) {
  const SlowStatic* seen[2] = {nullptr, nullptr};
  std::thread first([&] { seen[0] = TheSlowStatic(); });
  std::thread second([&] {
    usleep(50);
    seen[1] = TheSlowStatic();
  });
  first.join();
  second.join();
  *shared = seen[0] != nullptr && seen[0] == seen[1];
  return slow_static_constructions.load();
}

Report Run(int rounds) {
  Report report;
  report.thread_ids.push_back(SelfId(&report));
  ReadersAndWriters(rounds, &report);
  OnceFromFour(&report);
  TryLockWhileHeld(&report);
  DetachedThread(&report);
  const auto before = std::chrono::steady_clock::now();
  usleep(1000);
  report.steady_slept_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now() - before)
                               .count();
  report.time_seconds = static_cast<int64_t>(time(nullptr));
  report.cpu = sched_getcpu();
  report.hardware_threads = std::thread::hardware_concurrency();
  report.online_processors = sysconf(_SC_NPROCESSORS_ONLN);
  report.pid = static_cast<int>(getpid());
  return report;
}

void RunReadThenWrite() {
  std::shared_mutex mu;
  std::thread([&] {
    mu.lock_shared();
    mu.lock();
  }).join();
}

namespace {

[[noreturn]] void SleepForever() {
  while (true) usleep(1'000'000);
}

}  // namespace

void StartLeftovers(Leftovers* leftovers) {
  std::atomic<int> settled{0};
  std::thread([leftovers, &settled] {
    leftovers->lock.lock();
    settled++;
    SleepForever();
  }).detach();
  std::thread([leftovers, &settled] {
    std::call_once(leftovers->once, [leftovers, &settled] {
      leftovers->once_runs++;
      settled++;
      SleepForever();
    });
  }).detach();
  leftovers->joinable = new std::thread([] { SleepForever(); });
  while (settled < 2) usleep(100);
}

bool TakeLeftLock(Leftovers* leftovers) {
  if (!leftovers->lock.try_lock()) return false;
  leftovers->lock.unlock();
  return true;
}

void CallLeftOnce(Leftovers* leftovers) {
  std::call_once(leftovers->once, [leftovers] { leftovers->once_runs++; });
}

void JoinLeftThread(Leftovers* leftovers) { leftovers->joinable->join(); }

}  // namespace toythreads
