#include "report/run_json.h"

#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "report/json_internal.h"

namespace shale::report {
namespace internal {

json FailureToJson(const scenario::Failure& f) {
  return json{{"property", f.property}, {"key", f.key},   {"expected", f.expected},
              {"observed", f.observed}, {"step", f.step}, {"message", f.message}};
}

scenario::Failure FailureFromJson(const json& j) {
  scenario::Failure f;
  f.property = j.at("property").get<std::string>();
  f.key = j.value("key", "");
  f.expected = j.value("expected", "");
  f.observed = j.value("observed", "");
  f.step = j.value("step", uint64_t{0});
  f.message = j.value("message", "");
  return f;
}

json RunResultToJson(const scenario::RunResult& r, bool trace_hash_known) {
  json j = {{"scenario", r.scenario},
            {"seed", r.seed},
            {"verdict", r.passed ? "pass" : "fail"},
            {"trace_hash", trace_hash_known ? json(TraceHashHex(r.trace_hash)) : json(nullptr)},
            {"ops", r.ops},
            {"engine_ops", r.engine_ops},
            {"crashes", r.crashes},
            {"steps", r.steps},
            {"tape_bytes", r.tape_bytes},
            {"sim_time_ns", r.sim_time_ns},
            {"faults", r.faults_by_kind},
            {"observed", r.observed},
            {"ended_early", r.ended_early},
            {"scheduler", r.scheduler},
            {"pct_change_points", r.pct_change_points},
            {"options", r.options_drawn},
            {"failure", r.passed ? json(nullptr) : FailureToJson(r.failure)}};
  if (r.probes_counted) j["probes"] = r.probe_hits;
  if (!r.deterministic) j["deterministic"] = false;
  if (!r.recorded_history.empty()) j["history"] = r.recorded_history;
  return j;
}

scenario::RunResult RunResultFromJson(const json& j, bool* trace_hash_known) {
  scenario::RunResult r;
  r.scenario = j.at("scenario").get<std::string>();
  r.seed = j.at("seed").get<uint64_t>();
  const std::string verdict = j.at("verdict").get<std::string>();
  if (verdict != "pass" && verdict != "fail") {
    throw std::runtime_error("verdict must be \"pass\" or \"fail\"");
  }
  r.passed = verdict == "pass";
  const json& hash = j.at("trace_hash");
  if (trace_hash_known != nullptr) *trace_hash_known = !hash.is_null();
  if (!hash.is_null() && !ParseTraceHashHex(hash.get<std::string>(), &r.trace_hash)) {
    throw std::runtime_error("trace_hash is not 0x + 16 hex digits");
  }
  r.ops = j.value("ops", uint64_t{0});
  r.engine_ops = j.value("engine_ops", uint64_t{0});
  r.crashes = j.value("crashes", uint64_t{0});
  r.steps = j.value("steps", uint64_t{0});
  r.tape_bytes = j.value("tape_bytes", uint64_t{0});
  r.sim_time_ns = j.value("sim_time_ns", uint64_t{0});
  r.ended_early = j.value("ended_early", "");
  r.scheduler = j.value("scheduler", "");
  r.pct_change_points = j.value("pct_change_points", uint64_t{0});
  if (j.contains("observed")) r.observed = j.at("observed").get<std::map<std::string, uint64_t>>();
  if (j.contains("faults"))
    r.faults_by_kind = j.at("faults").get<std::map<std::string, uint64_t>>();
  if (j.contains("options")) {
    r.options_drawn = j.at("options").get<std::map<std::string, std::string>>();
  }
  if (!r.passed) r.failure = FailureFromJson(j.at("failure"));
  r.deterministic = j.value("deterministic", true);
  if (j.contains("probes")) {
    r.probes_counted = true;
    r.probe_hits = j.at("probes").get<std::map<std::string, uint64_t>>();
  }
  if (j.contains("history")) r.recorded_history = j.at("history").get<std::vector<std::string>>();
  return r;
}

// Whether any value in j is a floating-point number. Shale's formats hold
// only integers, and converting a float to an integer type is undefined
// behaviour when it is out of range, so decoders refuse floats up front.
// An explicit stack: a deeply nested input cannot overflow the call stack.
bool HasFloat(const json& j) {
  std::vector<const json*> pending = {&j};
  while (!pending.empty()) {
    const json* value = pending.back();
    pending.pop_back();
    if (value->is_number_float()) return true;
    if (value->is_structured()) {
      for (const json& child : *value) pending.push_back(&child);
    }
  }
  return false;
}

bool ParseObject(std::string_view text, std::string_view what, json* out, std::string* error) {
  *out = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) {
    *error = std::string(what) + ": not valid JSON";
    return false;
  }
  if (!out->is_object()) {
    *error = std::string(what) + ": not a JSON object";
    return false;
  }
  if (HasFloat(*out)) {
    *error = std::string(what) + ": a number is not an integer (every number here is one)";
    return false;
  }
  return true;
}

}  // namespace internal

std::string TraceHashHex(uint64_t trace_hash) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(trace_hash));
  return buf;
}

bool ParseTraceHashHex(std::string_view text, uint64_t* trace_hash) {
  if (text.size() != 18 || !text.starts_with("0x")) return false;
  text.remove_prefix(2);
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *trace_hash, 16);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::string EncodeRunResultLine(const scenario::RunResult& result, bool trace_hash_known) {
  return internal::JsonText(internal::RunResultToJson(result, trace_hash_known));
}

bool DecodeRunResultLine(std::string_view line, scenario::RunResult* result, std::string* error) {
  internal::json j;
  if (!internal::ParseObject(line, "run result", &j, error)) return false;
  return internal::Guarded("run result", error,
                           [&] { *result = internal::RunResultFromJson(j, nullptr); });
}

std::string DescribeFailure(const scenario::Failure& f) {
  std::string s = f.property;
  if (!f.key.empty()) s += " key '" + f.key + "'";
  if (!f.expected.empty() || !f.observed.empty()) {
    s += " expected '" + f.expected + "' observed '" + f.observed + "'";
  }
  if (f.step != 0) s += " at step " + std::to_string(f.step);
  if (!f.message.empty()) s += ": " + f.message;
  return s;
}

}  // namespace shale::report
