// The choice tape: a seed's endless tape and an explicit byte tape give the
// same draws for the same bytes; zero reads as the default choice; draws
// stay in range and lowering a draw's bytes never raises it; an explicit
// tape that runs out goes on deterministically.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/choice_tape.h"

using shale::sim::ChoiceTape;

namespace {

// A fixed mix of every kind of draw.
std::vector<uint64_t> Draws(ChoiceTape* t, int rounds) {
  std::vector<uint64_t> out;
  for (int i = 0; i < rounds; i++) {
    out.push_back(t->Uniform(3));
    out.push_back(t->Uniform(1000));
    out.push_back(t->Uniform(uint64_t{1} << 40));
    out.push_back(t->OneIn(7));
    out.push_back(t->Proceed(65536));
    out.push_back(t->Skewed(12));
    out.push_back(t->Next64());
    out.push_back(t->Uniform(1));
  }
  return out;
}

}  // namespace

TEST_CASE("a seed's consumed bytes replay its draws exactly", "[tape]") {
  for (uint64_t seed : {1u, 2u, 99u}) {
    ChoiceTape seeded(seed);
    const std::vector<uint64_t> first = Draws(&seeded, 50);
    const std::string bytes = seeded.Consumed();
    REQUIRE(bytes.size() == seeded.consumed_bytes());
    ChoiceTape replay(bytes);
    CHECK(Draws(&replay, 50) == first);
    CHECK(replay.consumed_bytes() == bytes.size());
    CHECK(replay.Consumed() == bytes);
  }
}

TEST_CASE("a tape of zeros makes every default choice", "[tape]") {
  ChoiceTape zeros(std::string(4096, '\0'));
  for (int i = 0; i < 100; i++) {
    CHECK(zeros.Uniform(5) == 0);
    CHECK(zeros.Uniform(123456789) == 0);
    CHECK_FALSE(zeros.OneIn(2));
    CHECK_FALSE(zeros.Proceed(2));
    CHECK(zeros.Skewed(10) == 0);
  }
  CHECK(zeros.consumed_bytes() < 4096);
}

TEST_CASE("Uniform stays in range, reads few bytes, and is monotone in its bytes", "[tape]") {
  ChoiceTape bytes_of_one(std::string(1, '\xff'));
  CHECK(bytes_of_one.Uniform(8) == 7);  // a power of two: one byte, exact
  CHECK(bytes_of_one.consumed_bytes() == 1);
  ChoiceTape one_draw(std::string(8, '\x7f'));
  (void)one_draw.Uniform(3);
  CHECK(one_draw.consumed_bytes() == 1);  // 256 >= 32 * 3
  (void)one_draw.Uniform(1000);
  CHECK(one_draw.consumed_bytes() == 3);  // 65536 >= 32 * 1000
  for (uint64_t n : {2ull, 3ull, 10ull, 1000ull, 65537ull, 1ull << 40, ~0ull}) {
    uint64_t previous = 0;
    for (int b = 0; b < 256; b++) {
      ChoiceTape t(std::string(8, static_cast<char>(b)));
      const uint64_t v = t.Uniform(n);
      CHECK(v < n);
      CHECK(v >= previous);
      previous = v;
    }
  }
}

TEST_CASE("a seed's Uniform draws are close to uniform", "[tape]") {
  ChoiceTape t(uint64_t{5});
  for (uint64_t n : {3ull, 5ull, 7ull, 100ull}) {
    std::vector<int> counts(n, 0);
    const int draws = 20000 * static_cast<int>(n);
    for (int i = 0; i < draws; i++) counts[t.Uniform(n)]++;
    for (int c : counts) {
      // Each value is at most ~3% likelier than another by construction;
      // allow that plus sampling noise.
      CHECK(c > 20000 * 0.93);
      CHECK(c < 20000 * 1.07);
    }
  }
}

TEST_CASE("an explicit tape that runs out goes on from its hash", "[tape]") {
  ChoiceTape a(std::string("abc"));
  ChoiceTape b(std::string("abc"));
  ChoiceTape c(std::string("abd"));
  const std::vector<uint64_t> da = Draws(&a, 20);
  CHECK(Draws(&b, 20) == da);
  CHECK(Draws(&c, 20) != da);
  ChoiceTape again(a.Consumed());
  CHECK(Draws(&again, 20) == da);
}

// Operation marks note where draws start and change none of them; zeroing
// the bytes of the Proceed draw at a mark stops there.
TEST_CASE("operation marks sit at the start of a draw and change no draw", "[tape]") {
  ChoiceTape marked(7), plain(7);
  std::vector<uint64_t> with_marks, without;
  for (int i = 0; i < 20; i++) {
    marked.MarkOperation();
    with_marks.push_back(marked.Proceed(65536));
    with_marks.push_back(marked.Uniform(1000));
    without.push_back(plain.Proceed(65536));
    without.push_back(plain.Uniform(1000));
  }
  CHECK(with_marks == without);
  const std::vector<uint64_t>& marks = marked.operation_marks();
  REQUIRE(marks.size() == 20);
  const int proceed_bytes = ChoiceTape::DrawBytes(65536);
  CHECK(proceed_bytes == 2);
  CHECK(ChoiceTape::DrawBytes(1) == 0);
  for (size_t i = 0; i < marks.size(); i++) {
    CHECK(marks[i] == i * static_cast<uint64_t>(proceed_bytes + ChoiceTape::DrawBytes(1000)));
  }
  std::string bytes = marked.Consumed();
  bytes[marks[5]] = bytes[marks[5] + 1] = '\0';
  ChoiceTape edited(bytes);
  for (int i = 0; i < 5; i++) {
    CHECK(edited.Proceed(65536) == (without[2 * i] != 0));
    edited.Uniform(1000);
  }
  CHECK_FALSE(edited.Proceed(65536));
}
