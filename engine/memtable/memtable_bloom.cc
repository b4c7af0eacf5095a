#include "memtable/memtable_bloom.h"

#include <cassert>
#include <new>

#include "util/hash.h"

namespace shale {

namespace {

constexpr size_t kWordsPerLine = MemTableBloom::kLineBytes / sizeof(uint64_t);
constexpr int kProbeBits = 9;  // a bit position within a 512-bit line
static_assert(MemTableBloom::kProbes * kProbeBits <= 64, "one hash word holds every probe");
static_assert(size_t{1} << kProbeBits == MemTableBloom::kLineBytes * 8);

size_t LinesFor(size_t bytes) {
  const size_t lines = (bytes + MemTableBloom::kLineBytes - 1) / MemTableBloom::kLineBytes;
  return lines == 0 ? 1 : lines;
}

// A different seed from the table filters', so the two never fail together.
constexpr uint64_t kMemTableBloomSeed = 0x6d656d626c6f6f6dull;

}  // namespace

size_t MemTableBloom::MemoryBytes(size_t bytes) { return (LinesFor(bytes) + 1) * kLineBytes; }

MemTableBloom::MemTableBloom(size_t bytes, char* memory)
    : num_lines_(LinesFor(bytes)), words_([memory] {
        const uintptr_t aligned =
            (reinterpret_cast<uintptr_t>(memory) + kLineBytes - 1) / kLineBytes * kLineBytes;
        return reinterpret_cast<std::atomic<uint64_t>*>(aligned);
      }()) {
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t));
  for (size_t i = 0; i < num_lines_ * kWordsPerLine; i++) {
    new (&words_[i]) std::atomic<uint64_t>(0);
  }
}

MemTableBloom::Probe MemTableBloom::ProbeFor(const Slice& user_key) const {
  const uint64_t h = Hash64(user_key.data(), user_key.size(), kMemTableBloomSeed);
  // The high half picks the line (a multiply-shift range reduction), a
  // remix of the whole hash the bits.
  const uint64_t line = ((h >> 32) * static_cast<uint64_t>(num_lines_)) >> 32;
  return Probe{words_ + line * kWordsPerLine, MixWord(h)};
}

template <typename Fn>
bool MemTableBloom::ForEachProbe(const Slice& user_key, Fn&& fn) const {
  Probe p = ProbeFor(user_key);
  for (int i = 0; i < kProbes; i++, p.bits >>= kProbeBits) {
    const unsigned bit = p.bits & ((1u << kProbeBits) - 1);
    if (!fn(p.line[bit / 64], uint64_t{1} << (bit % 64))) return false;
  }
  return true;
}

void MemTableBloom::Add(const Slice& user_key) {
  ForEachProbe(user_key, [](std::atomic<uint64_t>& word, uint64_t mask) {
    // One writer: a plain read-modify-write, atomic only against readers.
    word.store(word.load(std::memory_order_relaxed) | mask, std::memory_order_relaxed);
    return true;
  });
}

void MemTableBloom::AddConcurrently(const Slice& user_key) {
  ForEachProbe(user_key, [](std::atomic<uint64_t>& word, uint64_t mask) {
    word.fetch_or(mask, std::memory_order_relaxed);
    return true;
  });
}

bool MemTableBloom::MayContain(const Slice& user_key) const {
  return ForEachProbe(user_key, [](const std::atomic<uint64_t>& word, uint64_t mask) {
    return (word.load(std::memory_order_relaxed) & mask) != 0;
  });
}

}  // namespace shale
