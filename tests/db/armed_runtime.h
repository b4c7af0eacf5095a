// ArmedRuntime: the real runtime, except that FaultPoint(armed) fires
// once, on its kSkipHits+1-th hit (so some work succeeds first). Test-only.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "shale/env.h"

namespace shale_test {

class ArmedRuntime final : public shale::Runtime {
 public:
  ArmedRuntime(shale::Runtime* base, std::string armed) : base_(base), armed_(std::move(armed)) {}
  std::unique_ptr<shale::Mutex> NewMutex() override { return base_->NewMutex(); }
  std::unique_ptr<shale::CondVar> NewCondVar(shale::Mutex* mu) override {
    return base_->NewCondVar(mu);
  }
  std::unique_ptr<shale::Thread> StartThread(const std::string& name,
                                             std::function<void()> fn) override {
    return base_->StartThread(name, std::move(fn));
  }
  void SleepForMicroseconds(uint64_t micros) override { base_->SleepForMicroseconds(micros); }
  bool FaultPoint(const char* name) override {
    if (armed_ != name || hits_.fetch_add(1) < kSkipHits) return false;
    return !fired_.exchange(true);
  }
  bool fired() const { return fired_.load(); }

 private:
  static constexpr int kSkipHits = 3;
  shale::Runtime* const base_;
  const std::string armed_;
  std::atomic<int> hits_{0};
  std::atomic<bool> fired_{false};
};

}  // namespace shale_test
