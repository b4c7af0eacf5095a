// A campaign's promise report (report/promises.h) says, per write mode and
// promise, what the seeds that drew the mode showed: kept, dropped and
// first observed at a seed, dropped but never observed, or not run.
#include <catch2/catch.hpp>

#include <string>

#include "report/promises.h"

namespace shale::report {
namespace {

PromiseVerdict Verdict(bool kept, uint64_t seeds) {
  PromiseVerdict v;
  v.scenario = "unordered-write";
  v.mode = "unordered";
  v.promise = "atomic reads";
  v.kept = kept;
  v.seeds = seeds;
  return v;
}

TEST_CASE("a promise verdict names what its mode's seeds showed", "[report]") {
  CHECK(DescribeVerdict(Verdict(true, 12)) == "kept (12 seeds)");
  PromiseVerdict dropped = Verdict(false, 30);
  CHECK(DescribeVerdict(dropped) == "dropped — NOT observed in 30 seeds");
  dropped.first_observed_seed = 176;
  CHECK(DescribeVerdict(dropped) == "dropped — first observed at seed 176 (30 seeds)");
}

TEST_CASE("a mode no seed drew is reported as not run, neither kept nor dropped", "[report]") {
  CHECK(DescribeVerdict(Verdict(true, 0)) == "not run (no seed drew this mode)");
  CHECK(DescribeVerdict(Verdict(false, 0)) == "not run (no seed drew this mode)");
}

}  // namespace
}  // namespace shale::report
