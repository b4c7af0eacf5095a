#include "recheck.h"

#include "campaign_outputs.h"
#include "report/file_io.h"
#include "report/run_json.h"

namespace shale::cli {
namespace {

constexpr size_t kMaxQuotedEventBytes = 300;

// splitmix64's finalizer: every input bit moves every output bit.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string Quoted(std::string_view event) {
  if (event.size() > kMaxQuotedEventBytes) {
    return "'" + std::string(event.substr(0, kMaxQuotedEventBytes)) + "...'";
  }
  return "'" + std::string(event) + "'";
}

// The next line of text from *pos, without its newline; false at the end.
bool NextLine(const std::string& text, size_t* pos, std::string_view* line) {
  if (*pos >= text.size()) return false;
  size_t end = text.find('\n', *pos);
  if (end == std::string::npos) end = text.size();
  *line = std::string_view(text).substr(*pos, end - *pos);
  *pos = end + 1;
  return true;
}

std::string Verdict(const scenario::RunResult& r) {
  return r.passed ? "pass" : "fail (" + r.failure.property + ")";
}

}  // namespace

bool RecheckChosen(const std::string& scenario, uint64_t seed, uint32_t basis_points) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the name
  for (unsigned char c : scenario) h = (h ^ c) * 0x100000001b3ull;
  return Mix(h ^ Mix(seed)) % 10000 < basis_points;
}

std::string FirstDivergence(const std::string& trace_a, const std::string& trace_b) {
  size_t pos_a = 0, pos_b = 0;
  uint64_t events = 0;
  while (true) {
    std::string_view a, b;
    const bool more_a = NextLine(trace_a, &pos_a, &a);
    const bool more_b = NextLine(trace_b, &pos_b, &b);
    if (!more_a && !more_b) {
      return "the two re-runs agree on all " + std::to_string(events) + " events";
    }
    ++events;
    if (more_a && more_b && a == b) continue;
    return "the first event the two re-runs differ on is #" + std::to_string(events) + ": " +
           (more_a ? Quoted(a) : "the end of its trace") + " in one, " +
           (more_b ? Quoted(b) : "the end of its trace") + " in the other";
  }
}

bool Recheck::NextJob(scenario::RunConfig* job) {
  if (pending_.empty()) return false;
  *job = std::move(pending_.front());
  pending_.pop_front();
  return true;
}

bool Recheck::Chosen(const report::SeedEntry& e) const {
  return options_.recheck_basis_points > 0 && e.result.deterministic && e.trace_hash_known &&
         RecheckChosen(e.result.scenario, e.result.seed, options_.recheck_basis_points);
}

std::string Recheck::TracePath(const report::SeedEntry& e, int number) const {
  return options_.out_dir + "/failures/" + e.result.scenario + "-" + std::to_string(e.result.seed) +
         ".rerun-" + std::to_string(number) + ".trace";
}

scenario::RunConfig Recheck::RerunJob(const Held& held, int number) const {
  const scenario::RunResult& first = held.first.result;
  scenario::RunConfig job = ConfigFor(options_, first.scenario, first.seed);
  job.trace = true;
  job.heap_shift = static_cast<uint32_t>(number);
  job.trace_file = TracePath(held.first, number);
  // The re-run keeps its trace only if it differs; the trace run always.
  if (number == 1) job.expected_trace_hash = first.trace_hash;
  return job;
}

void Recheck::Take(const report::SeedEntry& entry, std::vector<report::SeedEntry>* ready) {
  const Key key{entry.result.scenario, entry.result.seed};
  const auto it = held_.find(key);
  if (it == held_.end()) {  // a first run
    --first_runs_running_;
    if (!Chosen(entry)) {
      ready->push_back(entry);
      return;
    }
    Held& held = held_[key];
    held.first = entry;
    if (!entry.result.passed) ++held_failed_;
    pending_.push_back(RerunJob(held, 1));
    return;
  }
  Held& held = it->second;
  if (!held.rerun_differed) {  // the re-run
    const bool same = entry.trace_hash_known &&
                      entry.result.trace_hash == held.first.result.trace_hash &&
                      entry.result.passed == held.first.result.passed;
    if (!same) {
      held.rerun = entry;
      held.rerun_differed = true;
      pending_.push_back(RerunJob(held, 2));
      return;
    }
    held.first.rechecked = true;
    ready->push_back(held.first);
  } else {  // the trace run
    ready->push_back(Failed(held, entry));
  }
  if (!held.first.result.passed) --held_failed_;
  held_.erase(it);
}

report::SeedEntry Recheck::Failed(const Held& held, const report::SeedEntry& trace_run) const {
  const auto describe = [](const report::SeedEntry& e) {
    if (!e.trace_hash_known) {
      return "no result: " + e.result.failure.property + ", " + e.result.failure.observed;
    }
    return "trace hash " + report::TraceHashHex(e.result.trace_hash) + ", " + Verdict(e.result);
  };
  std::string trace_a, trace_b, error;
  std::string parting;
  if (!held.rerun.trace_hash_known || !trace_run.trace_hash_known) {
    parting = "a re-run ended without a result, so its trace was not compared";
  } else if (!report::ReadWholeFile(TracePath(held.first, 1), &trace_a, &error) ||
             !report::ReadWholeFile(TracePath(held.first, 2), &trace_b, &error)) {
    parting = "the re-runs' traces could not be read (" + error + ")";
  } else {
    parting = FirstDivergence(trace_a, trace_b);
  }
  report::SeedEntry out = held.first;
  out.rechecked = true;
  out.result.passed = false;
  out.result.failure = scenario::Failure{
      "nondeterminism",
      "",
      "the first run's: " + describe(held.first),
      "a re-run in another worker: " + describe(held.rerun),
      0,
      "the same seed ran differently in another worker (a third run: " + describe(trace_run) +
          "); " + parting + "; traces: " + TracePath(held.first, 1) + ", " +
          TracePath(held.first, 2)};
  out.replay = ReplayCommand(options_.out_dir, out.result.scenario, out.result.seed);
  return out;
}

}  // namespace shale::cli
