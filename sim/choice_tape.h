// ChoiceTape: the one source of every random decision in a simulated run:
// each scheduler pick, each fault and crash decision, each workload choice
// and each option draw.
//
// A tape is a byte string read front to back; each draw takes the next few
// bytes. A seed is an endless tape: the bytes of a PRNG (xoshiro256**)
// seeded with it. Any byte string is also a tape: once its bytes run out,
// the run goes on with the bytes of a PRNG seeded by the string's hash. So
// every tape gives a valid run, and replaying the bytes a run consumed
// (Consumed()) repeats it exactly.
//
// Draws are bounded and read zero as the default choice, so a smaller tape
// gives a simpler run (what `shale shrink` relies on):
//   * Uniform(n) is in [0, n), monotone in the bytes read: zero gives 0,
//     and lowering the bytes never raises the value. Call sites order their
//     choices so that 0 is the default: the first runnable task, the
//     smallest option, the most common operation.
//   * OneIn(n) is true (the unusual branch: a fault, a rare option) only
//     for the top value of Uniform(n): zero reads false.
//   * Proceed(n) is false (stop, skip) only for zero: true on all but one
//     in n values. "One more operation?" and "crash here?" use it.
// Uniform(n) reads the fewest whole bytes b with 256^b >= 32 * n (exactly
// log256(n) bytes when n is a power of two), so no value is more than about
// 3% likelier than another; Uniform(1) reads nothing.
//
// The tape keeps no copy of what it read: Consumed() reads the same source
// again (the bytes, and the PRNG after them).
//
// Header-only: the simulator draws at every scheduling point, and the disk
// library (which sees the simulation only through disk_context.h) draws too.
//
// Thread safety: none; one tape per run, used from the simulation's thread.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/random.h"

namespace shale::sim {

class ChoiceTape {
 public:
  // The endless tape of seed.
  explicit ChoiceTape(uint64_t seed) : tail_seed_(seed), tail_(seed) {}
  // bytes, then the tape of a PRNG seeded by their hash.
  explicit ChoiceTape(std::string bytes)
      : prefix_(std::move(bytes)), tail_seed_(TapeHash(prefix_)), tail_(tail_seed_) {}
  ChoiceTape(ChoiceTape&&) = default;
  ChoiceTape(const ChoiceTape&) = delete;
  ChoiceTape& operator=(const ChoiceTape&) = delete;

  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n) {
    assert(n > 0);
    if (n == 1) return 0;
    const int bytes = BytesFor(n);
    // Big-endian within the draw, so its first byte weighs most.
    const uint64_t raw = __builtin_bswap64(ReadBytes(bytes)) >> (64 - 8 * bytes);
    return static_cast<uint64_t>((static_cast<unsigned __int128>(raw) * n) >> (8 * bytes));
  }

  // True only for the top value of Uniform(n). REQUIRES: n > 0.
  bool OneIn(uint64_t n) { return Uniform(n) == n - 1; }
  // False only when Uniform(n) is 0. REQUIRES: n > 0.
  bool Proceed(uint64_t n) { return Uniform(n) != 0; }
  // Uniform in [0, 2^Uniform(max_log+1)): small values far more often.
  uint64_t Skewed(int max_log) {
    return Uniform(uint64_t{1} << Uniform(static_cast<uint64_t>(max_log) + 1));
  }
  // Eight bytes, little-endian.
  uint64_t Next64() { return ReadBytes(8); }

  // How many bytes the draws so far read.
  uint64_t consumed_bytes() const { return consumed_bytes_; }

  // Notes that a workload operation's draws start here (at
  // consumed_bytes()), so a shrinker can delete whole operations rather
  // than byte spans that cut draws apart. Marks past kMaxOperationMarks
  // are not kept; marks change no draw.
  static constexpr size_t kMaxOperationMarks = size_t{1} << 20;
  void MarkOperation() {
    if (operation_marks_.size() < kMaxOperationMarks) operation_marks_.push_back(consumed_bytes_);
  }
  // The marked offsets, ascending.
  const std::vector<uint64_t>& operation_marks() const { return operation_marks_; }
  // The first n bytes of this tape (n may pass what was read): with n =
  // consumed_bytes(), a tape that replays this run exactly.
  std::string Prefix(uint64_t n) const {
    ChoiceTape again = prefix_.empty() ? ChoiceTape(tail_seed_) : ChoiceTape(prefix_);
    std::string bytes;
    bytes.reserve(n);
    for (uint64_t i = 0; i < n; i++) bytes.push_back(static_cast<char>(again.NextByte()));
    return bytes;
  }
  std::string Consumed() const { return Prefix(consumed_bytes_); }

  // The bytes one Uniform(n) draw reads (0 for n == 1).
  static int DrawBytes(uint64_t n) { return n == 1 ? 0 : BytesFor(n); }

  // The 64-bit hash of explicit tape bytes (FNV-1a; seeds the tail PRNG).
  static uint64_t TapeHash(const std::string& bytes) {
    uint64_t hash = 0xcbf29ce484222325ull ^ bytes.size();
    for (const char c : bytes) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
    return hash;
  }

 private:
  // The bytes Uniform(n) reads: the fewest b with 256^b >= 32n, or exactly
  // log256(n) for a power of two; at most 8.
  static int BytesFor(uint64_t n) {
    const bool power_of_two = (n & (n - 1)) == 0;
    const int bits = power_of_two ? 63 - __builtin_clzll(n) : 69 - __builtin_clzll(n - 1);
    return bits <= 8 ? 1 : bits >= 64 ? 8 : (bits + 7) / 8;
  }

  // count bytes (1..8), the first lowest. Reads straight from the PRNG
  // word when the explicit bytes are used up and the word has enough left.
  uint64_t ReadBytes(int count) {
    if (prefix_pos_ >= prefix_.size() && tail_word_left_ >= count) {
      const uint64_t value =
          count == 8 ? tail_word_ : tail_word_ & ((uint64_t{1} << (8 * count)) - 1);
      tail_word_ = count == 8 ? 0 : tail_word_ >> (8 * count);
      tail_word_left_ -= count;
      consumed_bytes_ += static_cast<uint64_t>(count);
      return value;
    }
    uint64_t value = 0;
    for (int i = 0; i < count; i++) value |= static_cast<uint64_t>(NextByte()) << (8 * i);
    return value;
  }

  uint8_t NextByte() {
    uint8_t byte;
    if (prefix_pos_ < prefix_.size()) {
      byte = static_cast<uint8_t>(prefix_[prefix_pos_++]);
    } else {
      if (tail_word_left_ == 0) {
        tail_word_ = tail_.Next64();
        tail_word_left_ = 8;
      }
      byte = static_cast<uint8_t>(tail_word_);
      tail_word_ >>= 8;
      tail_word_left_--;
    }
    consumed_bytes_++;
    return byte;
  }

  std::string prefix_;  // explicit bytes (empty for a seed's tape)
  size_t prefix_pos_ = 0;
  uint64_t tail_seed_;      // seeds tail_
  Random tail_;             // the bytes after the prefix
  uint64_t tail_word_ = 0;  // the PRNG word being read out
  int tail_word_left_ = 0;  // its bytes not yet read
  uint64_t consumed_bytes_ = 0;
  std::vector<uint64_t> operation_marks_;
};

}  // namespace shale::sim
