// Scenario doubles for the CLI tests, and the hook that lets this test
// binary act as its own `shale worker`.
//
// Why the test binary is its own worker: `shale run` execs `<self> worker
// ...`, and the doubles exist only in this binary, so the child must be this
// binary. Its main is Catch's (tests/catch_main.cc), so a static
// initializer in test_scenarios.cc reads /proc/self/cmdline (Linux) and, if
// argv[1] is "worker", registers the doubles, runs RunWorkerCommand and
// exits before Catch starts. No extra target or build change is needed.
//
//   test-fail-on-7  passes every seed except multiples of 7, which fail with
//                   a fixed "durability" failure; trace_hash depends only on
//                   the seed.
//   test-crash      seed 3 calls abort(); seed 4 sleeps forever (watchdog);
//                   every other seed passes.
#pragma once

namespace shale::cli::testing {

// Idempotent. Call at the start of every test that runs a campaign.
void RegisterTestScenarios();

}  // namespace shale::cli::testing
