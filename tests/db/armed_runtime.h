// ArmedRuntime: the real runtime, except that FaultPoint(armed) fires
// once, on its kSkipHits+1-th hit (so some work succeeds first). Test-only.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "common/forwarding_runtime.h"

namespace shale_test {

class ArmedRuntime final : public ForwardingRuntime {
 public:
  ArmedRuntime(shale::Runtime* base, std::string armed)
      : ForwardingRuntime(base), armed_(std::move(armed)) {}
  bool FaultPoint(const char* name) override {
    if (armed_ != name || hits_.fetch_add(1) < kSkipHits) return false;
    return !fired_.exchange(true);
  }
  bool fired() const { return fired_.load(); }

 private:
  static constexpr int kSkipHits = 3;
  const std::string armed_;
  std::atomic<int> hits_{0};
  std::atomic<bool> fired_{false};
};

}  // namespace shale_test
