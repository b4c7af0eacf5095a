// Fuzzes VersionEdit::DecodeFrom (one MANIFEST record's payload).
//
// Pins: no crash; a failure is Corruption; an edit that decodes re-encodes
// to bytes that decode to the same edit (encode(decode(encode(e))) equals
// encode(e)).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "version/version_edit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const shale::Slice input(reinterpret_cast<const char*>(data), size);
  shale::VersionEdit edit;
  const shale::Status s = edit.DecodeFrom(input);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return 0;
  std::string encoded;
  edit.EncodeTo(&encoded);
  shale::VersionEdit again;
  const shale::Status s2 = again.DecodeFrom(encoded);
  FUZZ_CHECK_MSG(s2.ok(), s2.ToString());
  std::string reencoded;
  again.EncodeTo(&reencoded);
  FUZZ_CHECK(reencoded == encoded);
  return 0;
}
