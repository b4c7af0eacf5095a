// `shale fuzz --scenario S --seconds N [--jobs J] [--planted_bugs B]
//  [--fuzzer PATH] [--out DIR]`: a coverage-guided simulation session. It
// runs the scenario's libFuzzer target (fuzz/sim_fuzz_target.cc, built by
// fuzz/build into build-fuzz/fuzz/fuzz_sim_<scenario>), whose inputs are
// choice tapes, for N seconds in libFuzzer's fork mode with J child
// processes at a time (a simulated crash leaks its process's memory on
// purpose, so children are restarted). The corpus grows in DIR/corpus
// (default DIR: fuzz/sessions/sim-<scenario>) and the fuzzer's output goes
// to DIR/fuzz.log; the first failing input is saved as DIR/crash-<sha1>
// (libFuzzer's layout), and for it the command prints how to replay and
// shrink it.
// Exit codes: 0 no failure found; 1 a failure found (or the fuzzer itself
// failed); 2 bad usage, or no fuzzer binary.
//
// Thread safety: call from one thread (it waits for the child process).
#pragma once

#include <ostream>
#include <span>
#include <string>

namespace shale::cli {

int RunFuzzCommand(std::span<const std::string> args, std::ostream& out, std::ostream& err);
std::string FuzzUsage();

}  // namespace shale::cli
