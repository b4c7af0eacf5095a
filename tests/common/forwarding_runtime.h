// ForwardingRuntime: a shale::Runtime that passes every call to a base
// runtime. Tests derive from it and override only the calls they change
// (a fault point that fires on cue, a yield point that holds a thread).
// Test-only. Thread safety: as the base's. REQUIRES: base outlives it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "shale/env.h"

namespace shale_test {

class ForwardingRuntime : public shale::Runtime {
 public:
  explicit ForwardingRuntime(shale::Runtime* base) : base_(base) {}
  std::unique_ptr<shale::Mutex> NewMutex() override { return base_->NewMutex(); }
  std::unique_ptr<shale::CondVar> NewCondVar(shale::Mutex* mu) override {
    return base_->NewCondVar(mu);
  }
  std::unique_ptr<shale::Thread> StartThread(const std::string& name,
                                             std::function<void()> fn) override {
    return base_->StartThread(name, std::move(fn));
  }
  void SleepForMicroseconds(uint64_t micros) override { base_->SleepForMicroseconds(micros); }
  bool CanSpin() const override { return base_->CanSpin(); }
  bool SpinWhileEqual(const std::atomic<uint64_t>& word, uint64_t value,
                      uint64_t max_micros) override {
    return base_->SpinWhileEqual(word, value, max_micros);
  }
  void YieldPoint(const char* name) override { base_->YieldPoint(name); }
  bool FaultPoint(const char* name) override { return base_->FaultPoint(name); }

 protected:
  shale::Runtime* base() const { return base_; }

 private:
  shale::Runtime* const base_;
};

}  // namespace shale_test
