// Internal entry points of crc32c.cc, exposed so tests can check that the
// hardware and software paths agree. Engine code calls crc32c::Extend only.
//
// Thread safety: all functions are pure and safe to call concurrently.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shale::crc32c {

// The table-driven (slicing-by-8) software path. Same contract as Extend.
uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n);

// True if this CPU runs the SSE4.2 path (the result is computed once).
bool HardwareAccelerated();

// The SSE4.2 path. REQUIRES: HardwareAccelerated().
uint32_t ExtendHardware(uint32_t init_crc, const char* data, size_t n);

}  // namespace shale::crc32c
