// Fuzzes CURRENT parsing (DecodeCurrentFile, as VersionSet::Recover uses
// it).
//
// Pins: a failure is Corruption whose message stays short whatever the
// input's size; a name that parses is exactly the text before the newline
// and is a MANIFEST name of the decoded number; and decode -> encode ->
// decode gives the same number (a number's canonical text may differ from
// the input's, e.g. in leading zeros).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "version/filename.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string contents(reinterpret_cast<const char*>(data), size);
  std::string name;
  uint64_t number = 0;
  const shale::Status s = shale::DecodeCurrentFile(contents, &name, &number);
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption());
    FUZZ_CHECK(s.ToString().size() <= 64 + 4 * shale::kMaxPrintableBytes);
    return 0;
  }
  FUZZ_CHECK(name + "\n" == contents);
  uint64_t parsed = 0;
  shale::FileType type;
  FUZZ_CHECK(shale::ParseFileName(name, &parsed, &type));
  FUZZ_CHECK(type == shale::FileType::kDescriptorFile && parsed == number);

  const std::string encoded = shale::EncodeCurrentFile(number);
  std::string name2;
  uint64_t number2 = 0;
  FUZZ_CHECK(shale::DecodeCurrentFile(encoded, &name2, &number2).ok());
  FUZZ_CHECK(number2 == number && name2 + "\n" == encoded);
  FUZZ_CHECK(shale::EncodeCurrentFile(number2) == encoded);
  return 0;
}
