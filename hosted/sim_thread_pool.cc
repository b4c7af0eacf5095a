// SimThreadPool: see sim_thread_pool.h.
#include "hosted/sim_thread_pool.h"

#include <algorithm>
#include <utility>

namespace shale::hosted {

SimThreadPool::SimThreadPool(Runtime* runtime, std::string name, int size)
    : runtime_(runtime),
      name_(std::move(name)),
      mu_(runtime->NewMutex()),
      work_cv_(runtime->NewCondVar(mu_.get())),
      size_(size) {}

SimThreadPool::~SimThreadPool() = default;

void SimThreadPool::StartWorkersLocked() {
  while (static_cast<int>(workers_.size()) < size_) {
    const int index = static_cast<int>(workers_.size());
    workers_.push_back(runtime_->StartThread(name_, [this, index] { WorkerMain(index); }));
  }
}

void SimThreadPool::Schedule(const Job& job) {
  mu_->Lock();
  queue_.push_back(job);
  StartWorkersLocked();
  work_cv_->SignalAll();
  mu_->Unlock();
}

int SimThreadPool::Unschedule(void* tag) {
  std::vector<Job> removed;
  mu_->Lock();
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->tag == tag) {
      removed.push_back(*it);
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  mu_->Unlock();
  for (const Job& job : removed) {
    if (job.unschedule != nullptr) job.unschedule(job.arg);
  }
  return static_cast<int>(removed.size());
}

size_t SimThreadPool::queue_length() {
  mu_->Lock();
  const size_t length = queue_.size();
  mu_->Unlock();
  return length;
}

void SimThreadPool::SetSizeLocked(int size) {
  size_ = size;
  work_cv_->SignalAll();
}

void SimThreadPool::set_size(int size) {
  mu_->Lock();
  SetSizeLocked(size);
  mu_->Unlock();
}

// One critical section: a size another thread set in between is never
// lowered.
void SimThreadPool::GrowTo(int size) {
  mu_->Lock();
  if (size > size_) SetSizeLocked(size);
  mu_->Unlock();
}

int SimThreadPool::size() {
  mu_->Lock();
  const int size = size_;
  mu_->Unlock();
  return size;
}

void SimThreadPool::WorkerMain(int index) {
  mu_->Lock();
  while (true) {
    const bool mine = index < size_;
    if (mine && !queue_.empty()) {
      const Job job = queue_.front();
      queue_.pop_front();
      mu_->Unlock();
      job.function(job.arg);
      mu_->Lock();
      continue;
    }
    if (stopping_ && (queue_.empty() || !mine)) break;
    work_cv_->Wait();
  }
  mu_->Unlock();
}

void SimThreadPool::Shutdown() {
  mu_->Lock();
  stopping_ = true;
  // Queued jobs still run: a pool past its size gets one worker for them.
  if (workers_.empty() && !queue_.empty()) size_ = std::max(size_, 1);
  StartWorkersLocked();
  work_cv_->SignalAll();
  std::vector<std::unique_ptr<Thread>> workers = std::move(workers_);
  mu_->Unlock();
  for (auto& worker : workers) worker->Join();
}

}  // namespace shale::hosted
