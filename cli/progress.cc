#include "progress.h"

#include <cstdio>

namespace shale::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

Progress::Progress(std::ostream& err, bool terminal, uint64_t total)
    : err_(err),
      terminal_(terminal),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - kRedrawInterval) {}

double Progress::SeedsPerSecond(uint64_t done) const {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return s > 0 ? static_cast<double>(done) / s : 0.0;
}

std::string Progress::Line(uint64_t done, uint64_t total, uint64_t failed, double seeds_per_s) {
  const uint64_t filled = total == 0 ? kBarWidth : done * kBarWidth / total;
  std::string bar(filled, '#');
  bar.resize(kBarWidth, '.');
  char rate[64];
  std::snprintf(rate, sizeof(rate), "%.1f seeds/s", seeds_per_s);
  return "[" + bar + "] " + std::to_string(done) + "/" + std::to_string(total) + " seeds  " +
         std::to_string(failed) + " failed  " + rate;
}

void Progress::Update(uint64_t done, uint64_t failed) {
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    if (done != total_ && now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    err_ << "\r" << Line(done, total_, failed, SeedsPerSecond(done)) << "\033[K" << std::flush;
    drew_ = true;
    return;
  }
  if (total_ == 0 || done * 10 < total_ * next_decile_) return;
  while (next_decile_ <= 10 && done * 10 >= total_ * next_decile_) ++next_decile_;
  err_ << "shale run: " << Line(done, total_, failed, SeedsPerSecond(done)) << "\n" << std::flush;
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (terminal_ && drew_) err_ << "\n" << std::flush;
}

}  // namespace shale::cli
