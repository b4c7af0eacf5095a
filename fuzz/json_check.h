// The check shared by the JSON fuzz targets (failure files and reports):
// decode the input; on failure the error must be one non-empty line; on
// success, encode -> decode -> encode must reproduce the first encoding
// (the encoding is canonical, and nothing decoded is lost by encoding).
//
// Decode(text, &value, &error) and Encode(value) are the format's pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"

namespace shale_fuzz {

template <typename Value, typename DecodeFn, typename EncodeFn>
void CheckJsonRoundTrip(const uint8_t* data, size_t size, DecodeFn decode, EncodeFn encode) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Value value;
  std::string error;
  if (!decode(text, &value, &error)) {
    FUZZ_CHECK(!error.empty());
    FUZZ_CHECK_MSG(error.find('\n') == std::string::npos, error);
    return;
  }
  const std::string encoded = encode(value);
  Value again;
  FUZZ_CHECK_MSG(decode(encoded, &again, &error), error);
  FUZZ_CHECK(encode(again) == encoded);
}

}  // namespace shale_fuzz
