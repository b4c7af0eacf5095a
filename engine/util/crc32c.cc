// CRC32C (Castagnoli, reflected polynomial 0x82f63b78).
//
// Software path: slicing-by-8 over eight 256-entry tables built at compile
// time. Hardware path: the SSE4.2 crc32 instruction, eight bytes at a time,
// chosen once at run time. Both keep the running value inverted while they
// work, so Extend(Extend(0, a), b) == Value(a ++ b).
#include "util/crc32c.h"

#include <array>
#include <cstring>

#include "util/crc32c_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define SHALE_CRC32C_X86 1
#endif

namespace shale::crc32c {
namespace {

constexpr uint32_t kReflectedPoly = 0x82f63b78u;
constexpr int kSlices = 8;
using Tables = std::array<std::array<uint32_t, 256>, kSlices>;

constexpr Tables BuildTables() {
  Tables t{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kReflectedPoly : 0u);
    t[0][byte] = crc;
  }
  for (int slice = 1; slice < kSlices; ++slice) {
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t prev = t[slice - 1][byte];
      t[slice][byte] = (prev >> 8) ^ t[0][prev & 0xffu];
    }
  }
  return t;
}

constexpr Tables kTables = BuildTables();
static_assert(kTables[0][1] == 0xf26b8303u, "crc32c table 0 is wrong");
static_assert(kTables[0][255] == 0xad7d5351u, "crc32c table 0 is wrong");

inline uint32_t Load32LE(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline uint32_t StepByte(uint32_t crc, uint8_t byte) {
  return (crc >> 8) ^ kTables[0][(crc ^ byte) & 0xffu];
}

// Folds 8 bytes into the (inverted) running crc.
inline uint32_t Step8(uint32_t crc, const uint8_t* p) {
  const uint32_t lo = Load32LE(p) ^ crc;
  const uint32_t hi = Load32LE(p + 4);
  return kTables[7][lo & 0xffu] ^ kTables[6][(lo >> 8) & 0xffu] ^ kTables[5][(lo >> 16) & 0xffu] ^
         kTables[4][lo >> 24] ^ kTables[3][hi & 0xffu] ^ kTables[2][(hi >> 8) & 0xffu] ^
         kTables[1][(hi >> 16) & 0xffu] ^ kTables[0][hi >> 24];
}

#if SHALE_CRC32C_X86
bool DetectSse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2") != 0;
}

// Three streams of kStreamBytes each run side by side (the crc32
// instruction has a latency of three cycles but issues every cycle), then
// join: the register is linear over GF(2), so the CRC of A||B from state s
// is Shift(state after A) ^ (CRC of B from state 0), Shift appending
// kStreamBytes zero bytes. Shift is four byte-indexed tables.
constexpr size_t kStreamBytes = 256;

struct ShiftTables {
  uint32_t byte[4][256];
};

__attribute__((target("sse4.2"))) uint32_t AppendZeros(uint32_t crc) {
  uint64_t crc64 = crc;
  for (size_t i = 0; i < kStreamBytes / 8; i++) crc64 = _mm_crc32_u64(crc64, 0);
  return static_cast<uint32_t>(crc64);
}

const ShiftTables& Shift() {
  static const ShiftTables tables = [] {
    ShiftTables t;
    for (int b = 0; b < 4; b++) {
      for (uint32_t v = 0; v < 256; v++) t.byte[b][v] = AppendZeros(v << (8 * b));
    }
    return t;
  }();
  return tables;
}

inline uint32_t ShiftState(const ShiftTables& t, uint32_t crc) {
  return t.byte[0][crc & 0xff] ^ t.byte[1][(crc >> 8) & 0xff] ^ t.byte[2][(crc >> 16) & 0xff] ^
         t.byte[3][crc >> 24];
}

__attribute__((target("sse4.2"))) inline uint64_t Crc64(uint64_t crc, const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return _mm_crc32_u64(crc, word);
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t init_crc, const uint8_t* p,
                                                       size_t n) {
  uint32_t crc = init_crc ^ 0xffffffffu;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7u) != 0) {
    crc = _mm_crc32_u8(crc, *p++);
    --n;
  }
#if defined(__x86_64__)
  if (n >= 3 * kStreamBytes) {
    const ShiftTables& shift = Shift();
    for (; n >= 3 * kStreamBytes; n -= 3 * kStreamBytes, p += 3 * kStreamBytes) {
      uint64_t a = crc, b = 0, c = 0;
      for (size_t i = 0; i < kStreamBytes; i += 8) {
        a = Crc64(a, p + i);
        b = Crc64(b, p + kStreamBytes + i);
        c = Crc64(c, p + 2 * kStreamBytes + i);
      }
      crc = ShiftState(shift,
                       ShiftState(shift, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
            static_cast<uint32_t>(c);
    }
  }
  uint64_t crc64 = crc;
  for (; n >= 8; n -= 8, p += 8) crc64 = Crc64(crc64, p);
  crc = static_cast<uint32_t>(crc64);
#endif
  for (; n > 0; --n) crc = _mm_crc32_u8(crc, *p++);
  return crc ^ 0xffffffffu;
}
#endif

}  // namespace

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  uint32_t crc = init_crc ^ 0xffffffffu;
  for (; n >= 8; n -= 8, p += 8) crc = Step8(crc, p);
  for (; n > 0; --n) crc = StepByte(crc, *p++);
  return crc ^ 0xffffffffu;
}

bool HardwareAccelerated() {
#if SHALE_CRC32C_X86
  static const bool has_sse42 = DetectSse42();
  return has_sse42;
#else
  return false;
#endif
}

uint32_t ExtendHardware(uint32_t init_crc, const char* data, size_t n) {
#if SHALE_CRC32C_X86
  return ExtendSse42(init_crc, reinterpret_cast<const uint8_t*>(data), n);
#else
  return ExtendPortable(init_crc, data, n);
#endif
}

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
  if (HardwareAccelerated()) return ExtendHardware(init_crc, data, n);
  return ExtendPortable(init_crc, data, n);
}

}  // namespace shale::crc32c
