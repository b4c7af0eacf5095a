#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <string>

#include "common/rc_check.h"
#include "shale/slice.h"

using shale::Slice;

namespace {
int Sign(int x) { return (x > 0) - (x < 0); }
}  // namespace

TEST_CASE("Slice::compare orders exactly as std::string (memcmp)", "[slice]") {
  shale_test::CheckProperty("slice compare", 2000, 7, [] {
    // Short alphabets make long common prefixes, so every word path runs.
    const auto gen_bytes =
        rc::gen::container<std::string>(rc::gen::elementOf(std::string("\x00\x01\x7f\x80\xfe\xff"
                                                                       "ab",
                                                                       8)));
    const std::string a = *gen_bytes;
    std::string b = *rc::gen::oneOf(gen_bytes, rc::gen::just(a));
    if (*rc::gen::arbitrary<bool>() && !a.empty()) b = a.substr(0, a.size() / 2);
    RC_ASSERT(Sign(Slice(a).compare(Slice(b))) == Sign(a.compare(b)));
    RC_ASSERT(Sign(Slice(b).compare(Slice(a))) == Sign(b.compare(a)));
  });
}
