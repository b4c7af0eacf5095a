#include "report/tape_codec.h"

#include <zlib.h>

#include "absl/strings/escaping.h"

namespace shale::report {

std::string EncodeTape(std::string_view tape) {
  uLongf size = compressBound(static_cast<uLong>(tape.size()));
  std::string packed(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
                           reinterpret_cast<const Bytef*>(tape.data()),
                           static_cast<uLong>(tape.size()), Z_BEST_COMPRESSION);
  // compress2 into compressBound bytes fails only without memory.
  if (rc != Z_OK) return "";
  packed.resize(size);
  return absl::Base64Escape(absl::string_view(packed));
}

bool DecodeTape(std::string_view text, uint64_t expected_bytes, std::string* tape,
                std::string* error) {
  if (expected_bytes > kMaxTapeBytes) {
    *error = "tape_bytes " + std::to_string(expected_bytes) + " is over the limit of " +
             std::to_string(kMaxTapeBytes);
    return false;
  }
  std::string packed;
  if (!absl::Base64Unescape(absl::string_view(text.data(), text.size()), &packed)) {
    *error = "tape is not Base64";
    return false;
  }
  tape->assign(expected_bytes, '\0');
  uLongf size = static_cast<uLongf>(expected_bytes);
  const int rc =
      uncompress(reinterpret_cast<Bytef*>(tape->data()), &size,
                 reinterpret_cast<const Bytef*>(packed.data()), static_cast<uLong>(packed.size()));
  if (rc != Z_OK || size != expected_bytes) {
    *error =
        "tape does not decompress to tape_bytes (" + std::to_string(expected_bytes) + ") bytes";
    return false;
  }
  return true;
}

}  // namespace shale::report
