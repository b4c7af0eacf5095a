// The text form of a choice tape in a failure file: the bytes compressed
// with zlib, then Base64 (a seed's tape is incompressible PRNG output, but a
// shrunk tape is mostly zeros and compresses to a few bytes).
//
// Thread safety: stateless functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shale::report {

// No tape a failure file holds is longer than this (a run of the default
// size reads a few hundred KiB).
inline constexpr uint64_t kMaxTapeBytes = uint64_t{64} << 20;

std::string EncodeTape(std::string_view tape);
// Decodes text into exactly expected_bytes bytes; false with one line in
// *error if text is not Base64, not zlib, or not that size (or the size is
// over kMaxTapeBytes).
[[nodiscard]] bool DecodeTape(std::string_view text, uint64_t expected_bytes, std::string* tape,
                              std::string* error);

}  // namespace shale::report
