// nlohmann::json conversions shared by the report library's .cc files.
// Internal: not installed, not included outside report/.
//
// The *FromJson functions throw (nlohmann::json exceptions, std::runtime_error)
// on a wrong shape; public decoders catch them (see Guarded) so none crosses
// the module boundary.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "scenarios/scenario.h"

namespace shale::report::internal {

using nlohmann::json;

json FailureToJson(const scenario::Failure& failure);
scenario::Failure FailureFromJson(const json& j);
// trace_hash_known=false writes "trace_hash": null.
json RunResultToJson(const scenario::RunResult& result, bool trace_hash_known);
// *trace_hash_known (may be null) says whether trace_hash was non-null.
scenario::RunResult RunResultFromJson(const json& j, bool* trace_hash_known);

// j as JSON text. Strings that are not UTF-8 (an engine message may quote
// the bytes of a damaged file) get U+FFFD in place of each bad byte, so
// encoding never throws.
inline std::string JsonText(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// True if j has key as a string equal to value (never throws: a key of
// another type is simply not equal).
inline bool StringFieldIs(const json& j, const char* key, std::string_view value) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() && it->get_ref<const std::string&>() == value;
}

// Parses text as one JSON object; false with one line in *error otherwise.
[[nodiscard]] bool ParseObject(std::string_view text, std::string_view what, json* out,
                               std::string* error);

// Runs fn(); any std::exception becomes false with "<what>: <reason>" in *error.
template <typename Fn>
[[nodiscard]] bool Guarded(std::string_view what, std::string* error, Fn fn) {
  try {
    fn();
    return true;
  } catch (const std::exception& e) {
    *error = std::string(what) + ": " + e.what();
    return false;
  }
}

}  // namespace shale::report::internal
