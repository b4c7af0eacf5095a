// The check shared by the data-block and index-block fuzz targets.
//
// A block's contents reach the parser only after their checksum passed, so
// the parser's contract for arbitrary bytes is narrow: never read outside
// the contents, and end iteration (with Corruption) on malformed entries.
// CheckBlock pins that by iterating the input forward and backward under
// ASan, then pins decode -> encode -> decode: when the entries it read
// come out in strictly increasing order with the comparator both ways,
// they are rebuilt with BlockBuilder, and the new block must yield them
// again forward, backward and by Seek.
//
// Thread safety: stateless.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shale_fuzz {

enum class BlockKind {
  kData,   // internal keys -> values
  kIndex,  // separator internal keys -> block handles
};

void CheckBlock(const uint8_t* data, size_t size, BlockKind kind);

}  // namespace shale_fuzz
