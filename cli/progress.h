// Campaign progress on stderr (`shale run`).
//
// On a terminal: one line rewritten in place ("\r") at most every 100 ms:
//   [#########...........]  450/1000 seeds  2 failed  88.1 seeds/s
// Elsewhere (CI logs): a plain line each time another 10% of the seeds is
// done, so logs stay short. Finish() ends the line (terminal) once.
//
// Thread safety: none; call from the campaign's thread. Ownership: borrows err.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace shale::cli {

class Progress {
 public:
  Progress(std::ostream& err, bool terminal, uint64_t total);

  void Update(uint64_t done, uint64_t failed);
  void Finish();

  // The text after "\r" (no newline); public for tests.
  static std::string Line(uint64_t done, uint64_t total, uint64_t failed, double seeds_per_s);

 private:
  double SeedsPerSecond(uint64_t done) const;

  std::ostream& err_;
  const bool terminal_;
  const uint64_t total_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  uint64_t next_decile_ = 1;  // non-terminal: print when done >= total * decile / 10
  bool drew_ = false;
  bool finished_ = false;
};

}  // namespace shale::cli
