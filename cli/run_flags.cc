#include "run_flags.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <thread>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "flag_set.h"
#include "planted_bugs.h"
#include "scenarios/scenario.h"
#include "util/probes.h"

namespace shale::cli {
namespace {

const char* GetEnvironment(const char* name) { return std::getenv(name); }

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kMaxJobs = 1024;
constexpr int64_t kMaxTimeoutS = 7 * 24 * 3600;

struct RunFlagValues {
  std::string scenario, seeds, shard, strategy, faults, out, planted_bugs, require_probes;
  std::string engine = "shale", pins;
  std::string recheck = "5";
  int64_t jobs = 0, ops = 0, crashes = 3, timeout_s = 120, max_failures = 0;
  bool help = false;
};

void DefineRunFlags(FlagSet* f, RunFlagValues* v) {
  f->AddString("scenario", &v->scenario, "scenario name or 'all' (see 'shale scenarios')");
  f->AddString("seeds", &v->seeds, "inclusive seed range A..B");
  f->AddString("shard", &v->shard,
               "K/N: keep seeds with seed % N == K-1 (1 <= K <= N); auto or auto/N: K from "
               "JOB_COMPLETION_INDEX+1 (a Kubernetes Indexed Job), N from SHALE_SHARD_COUNT");
  f->AddInt("jobs", &v->jobs, 0, kMaxJobs, "parallel worker processes; 0 = number of cores");
  f->AddInt("ops", &v->ops, 0, kIntMax, "workload operations per seed; 0 = scenario default");
  f->AddInt("crashes", &v->crashes, -1, kIntMax, "crashes per seed; -1 = scenario default");
  f->AddString("strategy", &v->strategy, "scheduler: random, pct, or empty = drawn from seed");
  f->AddString("faults", &v->faults, "I/O faults: on, off, or empty = drawn from seed");
  f->AddString("pin", &v->pins,
               "NAME=VALUE[,NAME=VALUE]: pin drawn options (names as in a report's options; "
               "see 'shale scenarios')");
  f->AddString("engine", &v->engine,
               "the engine the scenarios drive: shale, or a hosted one (see 'shale scenarios')");
  f->AddString("out", &v->out, "output directory; empty = out/run-<scenario>-<A>-<B>");
  f->AddInt("timeout_s", &v->timeout_s, 1, kMaxTimeoutS, "wall-clock limit per seed's worker");
  f->AddInt("max_failures", &v->max_failures, 0, kIntMax,
            "stop starting seeds after this many fail (running ones finish); 0 = run all");
  f->AddString("planted_bugs", &v->planted_bugs, "NAME[,NAME]: checker self-test (see below)");
  f->AddString("require_probes", &v->require_probes,
               "all or NAME[,NAME]: fail the campaign if any of these coverage probes stays "
               "unreached (see 'shale probes')");
  f->AddString("recheck", &v->recheck,
               "P or P%: re-run this share of the seeds (0 to 100, two decimals at most) in "
               "another worker; a seed that runs differently fails as nondeterminism");
  f->AddBool("help", &v->help, "print this list");
}

bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

// Checks engine is known and that every scenario in *names runs on it;
// under --scenario all, keeps only the scenarios that do.
bool ResolveEngine(const std::string& engine, bool all, std::vector<std::string>* names,
                   std::string* error) {
  const std::vector<std::string> known = scenario::EngineNames();
  if (std::find(known.begin(), known.end(), engine) == known.end()) {
    return Fail(error,
                "unknown engine '" + engine + "' (known: " + absl::StrJoin(known, ", ") + ")");
  }
  std::vector<std::string> kept;
  for (const std::string& name : *names) {
    if (scenario::FindScenario(name)->RunsOn(engine)) {
      kept.push_back(name);
    } else if (!all) {
      return Fail(error, "scenario '" + name + "' does not run on engine '" + engine +
                             "' (see 'shale scenarios')");
    }
  }
  if (kept.empty()) return Fail(error, "no scenario runs on engine '" + engine + "'");
  *names = std::move(kept);
  return true;
}

// "P" or "P%", 0 <= P <= 100 with at most two decimals, as basis points.
bool ParsePercent(std::string text, uint32_t* basis_points) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  const size_t dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  const auto digits = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 3 || !digits(whole) || fraction.size() > 2 ||
      !digits(fraction) || (dot != std::string::npos && fraction.empty())) {
    return false;
  }
  fraction.resize(2, '0');
  const uint32_t value = static_cast<uint32_t>(std::stoul(whole) * 100 + std::stoul(fraction));
  if (value > 10000) return false;
  *basis_points = value;
  return true;
}

// "all": every probe; else a comma-separated list of known names.
bool ParseRequiredProbes(const std::string& text, std::vector<std::string>* names,
                         std::string* error) {
  names->clear();
  if (text.empty()) return true;
  if (text == "all") {
    for (std::string_view name : probes::kNames) names->emplace_back(name);
    return true;
  }
  for (absl::string_view name : absl::StrSplit(text, ',')) {
    const auto known = std::find(probes::kNames.begin(), probes::kNames.end(),
                                 std::string_view(name.data(), name.size()));
    if (known == probes::kNames.end()) {
      return Fail(error, "unknown probe '" + std::string(name) +
                             "' in --require_probes (see 'shale probes')");
    }
    names->emplace_back(name);
  }
  std::sort(names->begin(), names->end());
  names->erase(std::unique(names->begin(), names->end()), names->end());
  return true;
}

bool ResolveScenarios(const std::string& flag, std::vector<std::string>* names,
                      std::string* error) {
  const auto& all = scenario::AllScenarios();
  if (flag.empty())
    return Fail(error, "--scenario is required (a name or 'all'; see 'shale scenarios')");
  if (flag == "all") {
    if (all.empty())
      return Fail(error, "no scenarios are registered yet (scenarios/builtin.cc lists none)");
    // Every simulated checking scenario: a real one writes real files and
    // is not deterministic, and a study is a measurement, so they run only
    // when named (Scenario::in_all).
    for (const scenario::Scenario* s : all) {
      if (s->in_all()) names->push_back(s->name());
    }
    return true;
  }
  if (scenario::FindScenario(flag) == nullptr) {
    std::string known;
    for (const scenario::Scenario* s : all)
      known += (known.empty() ? "" : ", ") + std::string(s->name());
    return Fail(
        error, "unknown scenario '" + flag + "' (known: " + (known.empty() ? "none" : known) + ")");
  }
  names->push_back(flag);
  return true;
}

bool CheckAndFill(const RunFlagValues& v, RunOptions* o, std::string* error) {
  o->scenario_flag = v.scenario;
  if (!ResolveScenarios(v.scenario, &o->scenarios, error)) return false;
  if (!ResolveEngine(v.engine, v.scenario == "all", &o->scenarios, error)) return false;
  o->engine = v.engine;
  if (!ParsePins(v.pins, o->scenarios, o->engine, &o->pins, error)) return false;
  if (v.seeds.empty()) return Fail(error, "--seeds A..B is required");
  if (!ParseSeedRange(v.seeds, &o->seeds, error)) return false;
  o->seeds_text = v.seeds;
  // The report records the resolved K/N, so shards merge by it.
  if (!ResolveAutoShard(v.shard, &GetEnvironment, &o->shard_text, error)) return false;
  if (!o->shard_text.empty() && !ParseShard(o->shard_text, &o->shard, error)) return false;
  const uint64_t per_scenario = ShardSeedCount(o->seeds, o->shard);
  if (per_scenario == 0) {
    return Fail(error, "shard " + o->shard_text + " keeps no seed of " + v.seeds);
  }
  if (per_scenario > kMaxCampaignSeeds / o->scenarios.size()) {
    return Fail(error, "too many seeds (limit " + std::to_string(kMaxCampaignSeeds) +
                           " per run; split the range or use --shard)");
  }
  if (v.faults != "" && v.faults != "on" && v.faults != "off") {
    return Fail(error, "unknown --faults '" + v.faults + "' (want on or off)");
  }
  if (v.strategy != "" && v.strategy != "random" && v.strategy != "pct") {
    return Fail(error, "unknown strategy '" + v.strategy + "' (want random or pct)");
  }
  if (!ParsePlantedBugs(v.planted_bugs, &o->planted_bugs, error)) return false;
  if (!ParseRequiredProbes(v.require_probes, &o->required_probes, error)) return false;
  if (!ParsePercent(v.recheck, &o->recheck_basis_points)) {
    return Fail(error, "bad --recheck '" + v.recheck +
                           "' (want a share from 0 to 100, such as 5 or 0.25%)");
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o->jobs = v.jobs == 0 ? cores : static_cast<int>(v.jobs);
  o->ops = static_cast<int>(v.ops);
  o->crashes = static_cast<int>(v.crashes);
  o->strategy = v.strategy;
  o->faults = v.faults;
  o->timeout_ms = v.timeout_s * 1000;
  o->max_failures = static_cast<uint64_t>(v.max_failures);
  o->out_dir = !v.out.empty() ? v.out
                              : "out/run-" + v.scenario + "-" + std::to_string(o->seeds.first) +
                                    "-" + std::to_string(o->seeds.last);
  return true;
}

}  // namespace

bool ParsePins(const std::string& text, const std::vector<std::string>& scenarios,
               const std::string& engine, std::map<std::string, std::string>* pins,
               std::string* error) {
  if (text.empty()) return true;
  for (const absl::string_view item : absl::StrSplit(text, ',')) {
    const std::vector<std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty()) {
      return Fail(error, "bad --pin item '" + std::string(item) + "' (want NAME=VALUE)");
    }
    for (const std::string& name : scenarios) {
      const scenario::Scenario* s = scenario::FindScenario(name);
      if (s == nullptr) return Fail(error, "unknown scenario '" + name + "'");
      const auto pinnable = s->PinnableOptions(engine);
      const auto it = pinnable.find(kv[0]);
      if (it == pinnable.end()) {
        return Fail(error, "scenario '" + name + "' on engine '" + engine + "' cannot pin '" +
                               kv[0] + "' (see 'shale scenarios')");
      }
      const std::string why_not = s->PinValueError(engine, kv[0], kv[1]);
      if (!why_not.empty()) return Fail(error, why_not);
    }
    (*pins)[kv[0]] = kv[1];
  }
  return true;
}

RunParse ParseRunFlags(std::span<const std::string> args, RunOptions* options, std::string* error) {
  RunFlagValues v;
  FlagSet flags("run");
  DefineRunFlags(&flags, &v);
  if (!flags.Parse(args, error)) return RunParse::kUsageError;
  if (v.help) return RunParse::kHelp;
  if (!flags.positional().empty()) {
    *error = "unexpected argument '" + flags.positional()[0] + "' (see 'shale help run')";
    return RunParse::kUsageError;
  }
  RunOptions o;
  if (!CheckAndFill(v, &o, error)) return RunParse::kUsageError;
  *options = std::move(o);
  return RunParse::kRun;
}

std::string RunUsage() {
  RunFlagValues v;
  FlagSet flags("run");
  DefineRunFlags(&flags, &v);
  return flags.Usage() + PlantedBugsUsage();
}

scenario::RunConfig ConfigFor(const RunOptions& o, const std::string& scenario, uint64_t seed) {
  scenario::RunConfig c;
  c.scenario = scenario;
  c.seed = seed;
  c.ops = o.ops;
  c.crashes = o.crashes;
  c.strategy = o.strategy;
  c.faults = o.faults;
  c.engine = o.engine;
  c.pins = o.pins;
  c.planted_bugs = o.planted_bugs;
  c.work_dir = o.out_dir;
  return c;
}

}  // namespace shale::cli
