#include "report/failure_file.h"

#include <stdexcept>

#include "report/json_internal.h"
#include "report/run_json.h"
#include "report/tape_codec.h"

namespace shale::report {
namespace {

using internal::json;

FailureFile FailureFileFromJson(const json& j) {
  FailureFile f;
  f.config.scenario = j.at("scenario").get<std::string>();
  f.config.seed = j.at("seed").get<uint64_t>();
  // Version 1 had only "ops": the run's limit.
  if (j.contains("ops_limit")) {
    f.config.ops = j.at("ops_limit").get<int>();
    f.ops_done = j.at("ops").get<uint64_t>();
  } else {
    f.config.ops = j.at("ops").get<int>();
  }
  f.config.crashes = j.at("crashes").get<int>();
  f.config.strategy = j.value("strategy", "");
  f.config.faults = j.value("faults", "");
  f.config.engine = j.value("engine", "");
  f.config.planted_bugs = j.value("planted_bugs", uint64_t{0});
  if (j.contains("pins")) f.config.pins = j.at("pins").get<std::map<std::string, std::string>>();
  const json& hash = j.at("trace_hash");
  if (!hash.is_null()) {
    uint64_t h = 0;
    if (!ParseTraceHashHex(hash.get<std::string>(), &h)) {
      throw std::runtime_error("trace_hash is not 0x + 16 hex digits");
    }
    f.trace_hash = h;
  }
  f.failure = internal::FailureFromJson(j.at("failure"));
  if (j.contains("options")) {
    f.options_drawn = j.at("options").get<std::map<std::string, std::string>>();
  }
  f.replay = j.value("replay", "");
  if (j.contains("history")) f.history = j.at("history").get<std::vector<std::string>>();
  if (j.contains("tape")) {
    std::string tape, error;
    if (!DecodeTape(j.at("tape").get<std::string>(), j.at("tape_bytes").get<uint64_t>(), &tape,
                    &error)) {
      throw std::runtime_error(error);
    }
    f.config.tape = std::move(tape);
  }
  return f;
}

}  // namespace

std::string EncodeFailureFile(const FailureFile& f) {
  json j = {{"format", "shale-failure"},
            {"version", 2},
            {"scenario", f.config.scenario},
            {"seed", f.config.seed},
            {"ops", f.ops_done},
            {"ops_limit", f.config.ops},
            {"crashes", f.config.crashes},
            {"strategy", f.config.strategy},
            {"faults", f.config.faults},
            {"engine", f.config.engine.empty() ? std::string("shale") : f.config.engine},
            {"planted_bugs", f.config.planted_bugs},
            {"pins", f.config.pins},
            {"trace_hash", f.trace_hash ? json(TraceHashHex(*f.trace_hash)) : json(nullptr)},
            {"failure", internal::FailureToJson(f.failure)},
            {"options", f.options_drawn},
            {"replay", f.replay}};
  if (!f.history.empty()) j["history"] = f.history;
  if (f.config.tape) {
    j["tape_bytes"] = f.config.tape->size();
    j["tape"] = EncodeTape(*f.config.tape);
  }
  return internal::JsonText(j, 2) + "\n";
}

bool DecodeFailureFile(std::string_view text, FailureFile* file, std::string* error) {
  json j;
  if (!internal::ParseObject(text, "failure file", &j, error)) return false;
  if (!internal::StringFieldIs(j, "format", "shale-failure")) {
    *error = "failure file: not a shale failure file (\"format\" is not \"shale-failure\")";
    return false;
  }
  return internal::Guarded("failure file", error, [&] { *file = FailureFileFromJson(j); });
}

std::string FailureFileName(const std::string& scenario, uint64_t seed) {
  return scenario + "-" + std::to_string(seed) + ".json";
}

}  // namespace shale::report
