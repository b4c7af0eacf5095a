// Fuzzes the SST filter block.
//
// The input is split at its first zero byte: the part before is read as a
// filter block (any bytes: the reader must never crash or read outside
// them, and a malformed filter must answer "may match"); the part after is
// a list of keys (split at 0xff bytes) that probe it, and are then built
// into a new filter with bits_per_key from the input's first byte: that
// filter must match every key it was built from (encode -> decode loses
// nothing).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "table/filter_block.h"

namespace {

std::vector<std::string> SplitKeys(const char* p, size_t n) {
  std::vector<std::string> keys(1);
  for (size_t i = 0; i < n && keys.size() <= 4096; i++) {
    if (static_cast<uint8_t>(p[i]) == 0xff) {
      keys.emplace_back();
    } else {
      keys.back().push_back(p[i]);
    }
  }
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* p = reinterpret_cast<const char*>(data);
  const void* zero = std::memchr(p, 0, size);
  const size_t filter_bytes = zero ? static_cast<const char*>(zero) - p : size;
  // The filter reads exactly its own bytes: give it a private copy so ASan
  // sees any read past them.
  const std::vector<char> filter(p, p + filter_bytes);
  const shale::BloomFilterReader reader(shale::Slice(filter.data(), filter.size()));
  const size_t rest = filter_bytes < size ? filter_bytes + 1 : size;
  const std::vector<std::string> keys = SplitKeys(p + rest, size - rest);
  // The documented "future encoding" cases: not whole 64-byte lines, or a
  // probe count outside 1..30.
  const bool malformed = filter.empty() || (filter.size() - 1) % 64 != 0 ||
                         static_cast<uint8_t>(filter.back()) < 1 ||
                         static_cast<uint8_t>(filter.back()) > 30;
  for (const std::string& key : keys) {
    const bool may_match = reader.KeyMayMatch(key);
    FUZZ_CHECK(may_match || !malformed);
  }

  const int bits_per_key = size == 0 ? 10 : 1 + data[0] % 24;
  shale::BloomFilterBuilder builder(bits_per_key);
  for (const std::string& key : keys) builder.AddKey(key);
  const shale::Slice built = builder.Finish();
  const std::string built_copy = built.ToString();
  const shale::BloomFilterReader rebuilt(built_copy);
  for (const std::string& key : keys) FUZZ_CHECK(rebuilt.KeyMayMatch(key));
  return 0;
}
