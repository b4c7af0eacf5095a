// Fuzzes the SST properties-block decoder (a checksum-verified block's
// contents).
//
// Pins: a failure is Corruption; properties that decode re-encode to bytes
// that decode to the same properties and re-encode identically.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "table/format.h"
#include "table/table.h"

namespace {

bool SameProperties(const shale::TableProperties& a, const shale::TableProperties& b) {
  return a.num_entries == b.num_entries && a.num_deletions == b.num_deletions &&
         a.num_data_blocks == b.num_data_blocks && a.raw_key_bytes == b.raw_key_bytes &&
         a.raw_value_bytes == b.raw_value_bytes && a.data_size_bytes == b.data_size_bytes &&
         a.index_size_bytes == b.index_size_bytes && a.filter_size_bytes == b.filter_size_bytes &&
         a.smallest_seqno == b.smallest_seqno && a.largest_seqno == b.largest_seqno &&
         a.compression == b.compression;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  shale::TableProperties props;
  const shale::Status s =
      shale::DecodeTableProperties(shale::Slice(reinterpret_cast<const char*>(data), size), &props);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return 0;
  std::string encoded;
  shale::EncodeTableProperties(props, &encoded);
  shale::TableProperties again;
  FUZZ_CHECK(shale::DecodeTableProperties(encoded, &again).ok());
  FUZZ_CHECK(SameProperties(props, again));
  std::string reencoded;
  shale::EncodeTableProperties(again, &reencoded);
  FUZZ_CHECK(reencoded == encoded);
  return 0;
}
