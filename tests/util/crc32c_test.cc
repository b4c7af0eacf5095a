// CRC32C: known vectors, Extend composition, masking, and agreement of the
// SSE4.2 and software paths on random data at every alignment.
#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "util/crc32c.h"
#include "util/crc32c_internal.h"
#include "util/random.h"

using namespace shale;

namespace {

// Every path the library has: Extend, portable, and hardware when present.
std::vector<uint32_t> AllPaths(const std::string& s) {
  std::vector<uint32_t> v = {crc32c::Value(s.data(), s.size()),
                             crc32c::ExtendPortable(0, s.data(), s.size())};
  if (crc32c::HardwareAccelerated()) v.push_back(crc32c::ExtendHardware(0, s.data(), s.size()));
  return v;
}

}  // namespace

TEST_CASE("crc32c known vectors on every path", "[crc32c]") {
  for (uint32_t crc : AllPaths(std::string(32, '\0'))) REQUIRE(crc == 0x8a9136aau);
  for (uint32_t crc : AllPaths(std::string(32, '\xff'))) REQUIRE(crc == 0x62a8ab43u);
  for (uint32_t crc : AllPaths("123456789")) REQUIRE(crc == 0xe3069283u);
  for (uint32_t crc : AllPaths("")) REQUIRE(crc == 0u);
  std::string ascending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i);
  for (uint32_t crc : AllPaths(ascending)) REQUIRE(crc == 0x46dd794eu);
}

TEST_CASE("crc32c values differ for different data", "[crc32c]") {
  REQUIRE(crc32c::Value("a", 1) != crc32c::Value("foo", 3));
  REQUIRE(crc32c::Value("ab", 2) != crc32c::Value("ba", 2));
}

TEST_CASE("crc32c Extend composes", "[crc32c]") {
  const std::string s = "hello world, this is a crc32c composition test";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    const uint32_t head = crc32c::Value(s.data(), cut);
    REQUIRE(crc32c::Extend(head, s.data() + cut, s.size() - cut) ==
            crc32c::Value(s.data(), s.size()));
    REQUIRE(crc32c::ExtendPortable(head, s.data() + cut, s.size() - cut) ==
            crc32c::Value(s.data(), s.size()));
  }
}

TEST_CASE("crc32c mask round-trips and changes the value", "[crc32c]") {
  const uint32_t crc = crc32c::Value("foo", 3);
  REQUIRE(crc32c::Mask(crc) != crc);
  REQUIRE(crc32c::Mask(crc32c::Mask(crc)) != crc);
  REQUIRE(crc32c::Unmask(crc32c::Mask(crc)) == crc);
  REQUIRE(crc32c::Unmask(crc32c::Unmask(crc32c::Mask(crc32c::Mask(crc)))) == crc);
}

TEST_CASE("crc32c hardware equals software on random data", "[crc32c]") {
  Random rnd(301);
  std::string buf(3 * 4096 + 16, '\0');  // many three-stream rounds
  for (char& c : buf) c = static_cast<char>(rnd.Next32());
  for (int iter = 0; iter < 2000; ++iter) {
    const size_t offset = rnd.Uniform(16);  // exercises every alignment
    const size_t n = rnd.Uniform(buf.size() - offset + 1);
    const uint32_t init = rnd.OneIn(2) ? 0 : rnd.Next32();
    const uint32_t portable = crc32c::ExtendPortable(init, buf.data() + offset, n);
    REQUIRE(crc32c::Extend(init, buf.data() + offset, n) == portable);
    if (crc32c::HardwareAccelerated()) {
      REQUIRE(crc32c::ExtendHardware(init, buf.data() + offset, n) == portable);
    }
  }
}

TEST_CASE("crc32c property: paths agree and compose", "[crc32c]") {
  // A fixed seed keeps the test the same on every run (RC_PARAMS overrides).
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (std::getenv("RC_PARAMS") == nullptr) params.seed = 0xc4c32c;
  const auto result = rc::detail::checkTestable(
      [](const std::string& s, size_t cut_seed) {
        const size_t cut = s.empty() ? 0 : cut_seed % (s.size() + 1);
        const uint32_t whole = crc32c::ExtendPortable(0, s.data(), s.size());
        RC_ASSERT(crc32c::Value(s.data(), s.size()) == whole);
        const uint32_t head = crc32c::Value(s.data(), cut);
        RC_ASSERT(crc32c::Extend(head, s.data() + cut, s.size() - cut) == whole);
      },
      rc::detail::TestMetadata{}, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  INFO(message.str());
  REQUIRE(result.is<rc::detail::SuccessResult>());
}
