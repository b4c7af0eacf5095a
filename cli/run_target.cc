#include "run_target.h"

#include <algorithm>

#include <limits>

#include "planted_bugs.h"
#include "report/failure_file.h"
#include "report/file_io.h"
#include "report/tape_codec.h"
#include "run_flags.h"
#include "seed_range.h"

namespace shale::cli {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

bool FromFile(const std::string& path, bool from_seed, RunTarget* target, std::string* error) {
  std::string text;
  report::FailureFile file;
  if (!report::ReadWholeFile(path, &text, error)) return false;
  if (!report::DecodeFailureFile(text, &file, error)) return Fail(error, path + ": " + *error);
  target->config = file.config;
  if (from_seed) target->config.tape.reset();
  target->expected_hash = file.trace_hash;
  target->expected_property = file.failure.property;
  return true;
}

bool FromFlags(const RunTargetFlags& v, RunTarget* target, std::string* error) {
  if (v.scenario.empty() || (v.seed.empty() == v.tape.empty())) {
    return Fail(error, "give a failure FILE, or --scenario and one of --seed or --tape");
  }
  scenario::RunConfig& c = target->config;
  c.scenario = v.scenario;
  if (!v.tape.empty()) {
    std::string tape;
    if (!report::ReadWholeFile(v.tape, &tape, error)) return false;
    if (tape.size() > report::kMaxTapeBytes) {
      return Fail(error, v.tape + ": a tape of " + std::to_string(tape.size()) +
                             " bytes is over the limit of " +
                             std::to_string(report::kMaxTapeBytes));
    }
    c.tape = std::move(tape);
  } else if (!ParseUint64(v.seed, &c.seed)) {
    return Fail(error, "bad value for --seed: '" + v.seed + "'");
  }
  if (!ParsePlantedBugs(v.planted_bugs, &c.planted_bugs, error)) return false;
  if (v.strategy != "" && v.strategy != "random" && v.strategy != "pct") {
    return Fail(error, "unknown strategy '" + v.strategy + "' (want random or pct)");
  }
  c.ops = static_cast<int>(v.ops);
  c.crashes = static_cast<int>(v.crashes);
  c.strategy = v.strategy;
  c.faults = v.faults;
  if (!v.engine.empty()) {
    const std::vector<std::string> known = scenario::EngineNames();
    if (std::find(known.begin(), known.end(), v.engine) == known.end()) {
      return Fail(error, "unknown engine '" + v.engine + "'");
    }
    c.engine = v.engine;
  }
  return ParsePins(v.pins, {c.scenario}, c.engine.empty() ? "shale" : c.engine, &c.pins, error);
}

// --pin with a failure FILE: the file's pins, with these over them. Only
// from the seed: a tape holds the values its run drew, so a run that pins
// another would read the rest of the tape out of step.
bool PinOverFile(const std::string& pins, bool from_seed, RunTarget* target, std::string* error) {
  if (!from_seed) return Fail(error, "--pin with a failure FILE needs --from_seed");
  scenario::RunConfig& c = target->config;
  std::map<std::string, std::string> over;
  if (!ParsePins(pins, {c.scenario}, c.engine.empty() ? "shale" : c.engine, &over, error)) {
    return false;
  }
  for (auto& [name, value] : over) c.pins[name] = std::move(value);
  target->expected_hash.reset();
  return true;
}

}  // namespace

void DefineRunTargetFlags(FlagSet* f, RunTargetFlags* v) {
  f->AddString("scenario", &v->scenario, "scenario name (instead of FILE)");
  f->AddString("seed", &v->seed, "seed (with --scenario)");
  f->AddString("tape", &v->tape,
               "choice-tape file to run (with --scenario; e.g. a fuzzer's crash)");
  f->AddInt("ops", &v->ops, 0, kIntMax, "workload operations; 0 = scenario default");
  f->AddInt("crashes", &v->crashes, -1, kIntMax, "crashes; -1 = scenario default");
  f->AddString("strategy", &v->strategy, "scheduler: random, pct, or empty = drawn from the tape");
  f->AddString("faults", &v->faults, "I/O faults: on, off, or empty = drawn from the tape");
  f->AddString("planted_bugs", &v->planted_bugs, "NAME[,NAME]: checker self-test (see below)");
  f->AddString("engine", &v->engine, "the engine: shale (the default) or a hosted one");
  f->AddString("pin", &v->pins, "NAME=VALUE[,NAME=VALUE]: pin drawn options");
}

bool ResolveRunTarget(std::span<const std::string> positional, const RunTargetFlags& v,
                      bool from_seed, RunTarget* target, std::string* error) {
  if (positional.size() > 1) return Fail(error, "unexpected argument '" + positional[1] + "'");
  if (positional.size() == 1 && !v.scenario.empty()) {
    return Fail(error, "give FILE or --scenario, not both");
  }
  if (positional.empty() && from_seed) return Fail(error, "--from_seed needs a failure FILE");
  if (positional.size() == 1 ? !FromFile(positional[0], from_seed, target, error)
                             : !FromFlags(v, target, error)) {
    return false;
  }
  if (scenario::FindScenario(target->config.scenario) == nullptr) {
    return Fail(error,
                "unknown scenario '" + target->config.scenario + "' (see 'shale scenarios')");
  }
  if (positional.size() == 1 && !v.pins.empty())
    return PinOverFile(v.pins, from_seed, target, error);
  return true;
}

}  // namespace shale::cli
