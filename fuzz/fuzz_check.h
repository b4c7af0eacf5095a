// FUZZ_CHECK: a fuzz target's assertion. It is on in every build; on failure
// it prints the condition and its place and aborts, so libFuzzer saves the
// input as a crash. Targets use it for the properties they pin; sanitizer
// reports and engine asserts fail a run the same way.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

// Like FUZZ_CHECK, with a message naming what differed.
#define FUZZ_CHECK_MSG(cond, msg)                                          \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s) at %s:%d\n", #cond, \
                   std::string(msg).c_str(), __FILE__, __LINE__);          \
      std::abort();                                                        \
    }                                                                      \
  } while (0)
