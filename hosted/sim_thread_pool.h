// SimThreadPool: a hosted engine's background thread pool (one priority of
// it) on a shale::Runtime's threads, so that in a simulation every worker
// is a task the scheduler runs.
//
// Jobs run in the order they were scheduled. Each Schedule starts workers
// until the pool's size have started, as RocksDB's own pool
// (util/threadpool_imp.cc) starts its threads at each submission; a pool
// made smaller keeps its started workers, and those past the new size
// take no more jobs. Unschedule removes every queued job with a tag and calls each one's
// unschedule function, so whoever waits for it hears that it will not run.
//
// Thread safety: every call may come from any thread of the runtime.
// Ownership: the runtime outlives the pool.
// REQUIRES: Shutdown, from a thread of the runtime, before destruction.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "shale/env.h"

namespace shale::hosted {

class SimThreadPool {
 public:
  struct Job {
    void (*function)(void* arg) = nullptr;
    void* arg = nullptr;
    void* tag = nullptr;
    void (*unschedule)(void* arg) = nullptr;  // may be null
  };

  // name: the workers' task name; size: how many workers it may start.
  SimThreadPool(Runtime* runtime, std::string name, int size);
  ~SimThreadPool();
  SimThreadPool(const SimThreadPool&) = delete;
  SimThreadPool& operator=(const SimThreadPool&) = delete;

  void Schedule(const Job& job);
  // Returns how many queued jobs carried tag.
  int Unschedule(void* tag);
  size_t queue_length();
  void set_size(int size);
  // Grows the pool to size if it is smaller.
  void GrowTo(int size);
  int size();

  // Runs the jobs still queued, then stops and joins every worker. At most
  // once; nothing may be scheduled after.
  void Shutdown();

 private:
  void WorkerMain(int index);
  void StartWorkersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetSizeLocked(int size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Runtime* const runtime_;
  const std::string name_;
  const std::unique_ptr<Mutex> mu_;
  const std::unique_ptr<CondVar> work_cv_;
  std::deque<Job> queue_ ABSL_GUARDED_BY(mu_);
  int size_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::unique_ptr<Thread>> workers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shale::hosted
