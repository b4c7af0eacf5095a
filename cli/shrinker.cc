#include "shrinker.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>

#include "isolated_run.h"
#include "scenarios/scenario_run.h"
#include "sim/choice_tape.h"
#include "util/hash.h"

namespace shale::cli {

namespace {

using Clock = std::chrono::steady_clock;

// The shortlex key a kept edit must lower.
auto Key(const scenario::RunResult& r, const scenario::RunConfig& c) {
  return std::make_tuple(r.ops, r.crashes, c.tape->size(), *c.tape);
}

int Crashes(const scenario::RunConfig& c) { return c.crashes < 0 ? 3 : c.crashes; }

// The bytes of c's tape (its own, or its seed's) that run r read.
std::string TapeRead(const scenario::RunConfig& c, const scenario::RunResult& r) {
  return c.tape ? sim::ChoiceTape(*c.tape).Prefix(r.tape_bytes)
                : sim::ChoiceTape(c.seed).Prefix(r.tape_bytes);
}

class Search {
 public:
  Search(const scenario::Scenario* s, const ShrinkOptions& options)
      : scenario_(s), options_(options), start_(Clock::now()) {}

  // Runs config (from its tape, or its seed's); false with *error if it
  // passes. Else the run is the one to shrink.
  bool Start(scenario::RunConfig config, std::string* error, ShrinkOutcome* outcome) {
    config.trace = false;
    const scenario::RunResult r = Run(config);
    if (r.passed) {
      *error = "the run passes: nothing to shrink";
      return false;
    }
    property_ = r.failure.property;
    config.tape = TapeRead(config, r);
    best_ = config;
    best_result_ = r;
    outcome->original = best_;
    outcome->original_result = r;
    return true;
  }

  // Keeps candidate if it fails the property and is smaller. True if kept.
  bool Try(scenario::RunConfig candidate) {
    if (OutOfTime()) return false;
    const scenario::RunResult r = Run(candidate);
    if (r.passed || r.failure.property != property_) return false;
    candidate.tape = TapeRead(candidate, r);
    if (!(Key(r, candidate) < Key(best_result_, best_))) return false;
    best_ = std::move(candidate);
    best_result_ = r;
    return true;
  }

  bool OutOfTime() const { return Seconds() >= options_.max_seconds; }
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  const scenario::RunConfig& best() const { return best_; }
  const scenario::RunResult& best_result() const { return best_result_; }
  uint64_t runs() const { return runs_; }

 private:
  scenario::RunResult Run(const scenario::RunConfig& config) {
    runs_++;
    scenario::RunResult r = RunForCommand(*scenario_, config);
    const double now = Seconds();
    if (options_.progress && now >= next_progress_s_) {
      next_progress_s_ = now + 1;
      options_.progress({now, runs_, best_result_.ops, best_.tape ? best_.tape->size() : 0});
    }
    return r;
  }

  const scenario::Scenario* scenario_;
  const ShrinkOptions& options_;
  const Clock::time_point start_;
  std::string property_;
  scenario::RunConfig best_;
  scenario::RunResult best_result_;
  uint64_t runs_ = 0;
  double next_progress_s_ = 1;
};

// Fewer crashes, faults off, the uniform scheduler, a lower op limit.
bool StructuralPass(Search* s) {
  bool kept = false;
  for (int crashes = 0; crashes < Crashes(s->best()); crashes++) {
    scenario::RunConfig c = s->best();
    c.crashes = crashes;
    if (s->Try(c)) {
      kept = true;
      break;
    }
  }
  if (s->best().faults != "off") {
    scenario::RunConfig c = s->best();
    c.faults = "off";
    kept |= s->Try(c);
  }
  if (s->best().strategy != "random") {
    scenario::RunConfig c = s->best();
    c.strategy = "random";
    kept |= s->Try(c);
  }
  for (uint64_t limit = s->best_result().ops; limit >= 1; limit /= 2) {
    scenario::RunConfig c = s->best();
    if (c.ops > 0 && static_cast<uint64_t>(c.ops) <= limit) continue;
    c.ops = static_cast<int>(limit);
    kept |= s->Try(c);
  }
  return kept;
}

// Small runs first, as a generator of examples would: new tapes at op
// limits 4, 8, ..., below the smallest failing run so far (a bug most runs
// find shows in some small run too). Every other tape keeps that run's
// opening draws (its tape before the first operation mark: the options,
// the client count, the setup's schedule) and goes on with new bytes,
// since a bug often needs its options more than its schedule; the rest
// are fresh seeds' tapes. The first that fails the property is kept and
// shrunk on. Each Pass gives every limit about the same time: up to
// kExploreBatchOps / limit runs, going on from the tapes the last Pass
// tried. Exploring stops at kExploreShare of the time limit and after
// kExploreMaxRuns runs. Before any edit it explores for up to
// kExploreFirstShare of the time limit: small runs are cheap, and a
// small failing run found directly beats many edits of a long one.
constexpr uint64_t kExploreBatchOps = 4096;
constexpr uint64_t kExploreMaxRuns = 65536;
constexpr double kExploreShare = 0.6;
constexpr double kExploreFirstShare = 0.3;
constexpr uint64_t kExploreFirstLimit = 4;

class Explorer {
 public:
  explicit Explorer(double max_seconds) : max_seconds_(max_seconds) {}

  // True if a run was kept.
  bool Pass(Search* s) {
    for (uint64_t limit = kExploreFirstLimit; limit < s->best_result().ops; limit *= 2) {
      for (uint64_t i = 0; i < std::max<uint64_t>(1, kExploreBatchOps / limit) && HasBudget(*s);
           i++) {
        if (s->Try(Candidate(*s, limit))) return true;
      }
    }
    return false;
  }

  // Starts Passes until one keeps a run (true), exploring is out of budget,
  // or share of the time limit has passed. A Pass started before then runs
  // on within the whole budget (kExploreShare).
  // REQUIRES: share <= kExploreShare.
  bool PassesUntil(Search* s, double share) {
    while (HasBudget(*s, share)) {
      if (Pass(s)) return true;
    }
    return false;
  }

  // Whether a Pass could still run: time and runs left, and a limit below
  // the best run's ops.
  bool HasBudget(const Search& s, double share = kExploreShare) const {
    return runs_ < kExploreMaxRuns && s.Seconds() < share * max_seconds_ &&
           kExploreFirstLimit < s.best_result().ops;
  }

 private:
  scenario::RunConfig Candidate(const Search& s, uint64_t limit) {
    const uint64_t index = runs_per_limit_[limit]++;
    runs_++;
    scenario::RunConfig c = s.best();
    c.ops = static_cast<int>(limit);
    const uint64_t fresh = MixWord(s.best().seed ^ MixWord(limit) ^ MixWord(~index));
    const std::vector<uint64_t>& marks = s.best_result().operation_marks;
    if (index % 2 == 1 && !marks.empty() && marks.front() <= c.tape->size()) {
      c.tape->resize(marks.front());
      for (int b = 0; b < 8; b++) c.tape->push_back(static_cast<char>(fresh >> (8 * b)));
    } else {
      c.tape.reset();
      c.seed = fresh;
    }
    return c;
  }

  const double max_seconds_;
  uint64_t runs_ = 0;
  std::map<uint64_t, uint64_t> runs_per_limit_;  // the next tape's index at each limit
};

// The smallest k (binary search) such that zeroing the tape from k on still
// fails.
bool ZeroSuffixPass(Search* s) {
  const std::string tape = *s->best().tape;
  size_t lo = 0, hi = tape.size();
  bool kept = false;
  while (lo < hi && !s->OutOfTime()) {
    const size_t mid = lo + (hi - lo) / 2;
    scenario::RunConfig c = s->best();
    std::string t = tape.substr(0, mid);
    t.resize(tape.size(), '\0');
    c.tape = std::move(t);
    if (s->Try(c)) {
      kept = true;
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return kept;
}

// Calls try_at(k) for operation marks k from the last back to the first,
// `step` at a time, re-reading the marks before each call (a kept edit
// changes them). try_at returns whether it kept an edit; so does this.
template <typename TryAt>
bool FromLastOperation(Search* s, size_t step, TryAt try_at) {
  bool kept = false;
  for (size_t k = s->best_result().operation_marks.size(); k > 0 && !s->OutOfTime();) {
    k = std::min(k, s->best_result().operation_marks.size());
    if (k == 0) break;
    k = k > step ? k - step : 0;
    kept |= try_at(k);
  }
  return kept;
}

// Whole operations, last first: deletes the draws of `count` operations
// in a row (from one operation mark to the mark `count` later, or to the
// tape's end), so the draws after them stay whole.
bool DeleteOperationsPass(Search* s, size_t count) {
  return FromLastOperation(s, count, [&](size_t k) {
    const std::vector<uint64_t>& marks = s->best_result().operation_marks;
    const std::string& tape = *s->best().tape;
    const uint64_t begin = marks[k];
    const uint64_t end = k + count < marks.size() ? marks[k + count] : tape.size();
    if (begin >= end || end > tape.size()) return false;
    scenario::RunConfig c = s->best();
    c.tape->erase(begin, end - begin);
    return s->Try(c);
  });
}

// Stops a client before an operation, last operations first: zeroes that
// operation's "one more?" draw (scenario::MoreOps).
bool StopClientsPass(Search* s) {
  const size_t width = static_cast<size_t>(sim::ChoiceTape::DrawBytes(scenario::kMoreOpsOneIn));
  return FromLastOperation(s, 1, [&](size_t k) {
    const std::string& tape = *s->best().tape;
    const uint64_t begin = s->best_result().operation_marks[k];
    if (begin + width > tape.size() || tape.find_first_not_of('\0', begin) >= begin + width) {
      return false;
    }
    scenario::RunConfig c = s->best();
    std::fill_n(c.tape->begin() + static_cast<long>(begin), width, '\0');
    return s->Try(c);
  });
}

// Deletes, or zeroes, the spans [end - width, end) for end = the tape's
// length, then width less, and so on back to the start (so a kept edit
// never moves the spans still to try).
bool SpanPass(Search* s, size_t width, bool zero) {
  bool kept = false;
  for (size_t end = s->best().tape->size(); end >= width && !s->OutOfTime(); end -= width) {
    const std::string& tape = *s->best().tape;
    if (end > tape.size()) end = tape.size() - tape.size() % width;
    if (end < width) break;
    const size_t begin = end - width;
    if (zero && tape.find_first_not_of('\0', begin) >= end) continue;
    scenario::RunConfig c = s->best();
    if (zero) {
      std::fill(c.tape->begin() + static_cast<long>(begin),
                c.tape->begin() + static_cast<long>(end), '\0');
    } else {
      c.tape->erase(begin, width);
    }
    kept |= s->Try(c);
  }
  return kept;
}

// Lowers each non-zero byte as far as it still fails (binary search).
bool LowerBytesPass(Search* s) {
  bool kept = false;
  for (size_t i = 0; i < s->best().tape->size() && !s->OutOfTime(); i++) {
    uint8_t lo = 0;
    uint8_t hi = static_cast<uint8_t>((*s->best().tape)[i]);
    while (lo < hi && !s->OutOfTime() && i < s->best().tape->size()) {
      const uint8_t mid = static_cast<uint8_t>(lo + (hi - lo) / 2);
      scenario::RunConfig c = s->best();
      (*c.tape)[i] = static_cast<char>(mid);
      if (s->Try(c)) {
        kept = true;
        hi = mid;
      } else {
        lo = static_cast<uint8_t>(mid + 1);
      }
    }
  }
  return kept;
}

// One round of every pass; true if one kept an edit.
bool Round(Search* s, Explorer* explorer) {
  bool progress = StructuralPass(s);
  progress |= explorer->Pass(s);
  progress |= ZeroSuffixPass(s);
  for (size_t count : {16, 4, 1}) progress |= DeleteOperationsPass(s, count);
  progress |= StopClientsPass(s);
  for (size_t width : {256, 64, 16, 4, 2, 1}) progress |= SpanPass(s, width, /*zero=*/false);
  for (size_t width : {64, 16, 4, 1}) progress |= SpanPass(s, width, /*zero=*/true);
  progress |= LowerBytesPass(s);
  return progress;
}

}  // namespace

bool Shrink(const scenario::RunConfig& config, const ShrinkOptions& options, ShrinkOutcome* outcome,
            std::string* error) {
  const scenario::Scenario* scenario = scenario::FindScenario(config.scenario);
  Search s(scenario, options);
  if (!s.Start(config, error, outcome)) return false;
  Explorer explorer(options.max_seconds);
  (void)explorer.PassesUntil(&s, kExploreFirstShare);
  while (!s.OutOfTime()) {
    // Out of edits: new small tapes, while exploring has budget left.
    if (!Round(&s, &explorer) && !explorer.PassesUntil(&s, kExploreShare)) break;
  }
  outcome->shrunk = s.best();
  outcome->shrunk_result = s.best_result();
  outcome->runs = s.runs();
  outcome->seconds = s.Seconds();
  return true;
}

}  // namespace shale::cli
