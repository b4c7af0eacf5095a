#include "flag_set.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace shale::cli {
namespace {

// Sets *error and returns false, so error paths stay one line.
bool Fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

}  // namespace

bool ParseInt64(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

bool ParseSizeBytes(std::string_view text, uint64_t* value) {
  uint64_t multiplier = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        multiplier = 1ull << 10;
        break;
      case 'M':
      case 'm':
        multiplier = 1ull << 20;
        break;
      case 'G':
      case 'g':
        multiplier = 1ull << 30;
        break;
      default:
        break;
    }
    if (multiplier != 1) text.remove_suffix(1);
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  uint64_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || ptr != end) return false;
  if (n > std::numeric_limits<uint64_t>::max() / multiplier) return false;
  *value = n * multiplier;
  return true;
}

void FlagSet::AddBool(std::string name, bool* target, std::string help) {
  flags_.push_back({std::move(name), target, std::move(help), *target ? "true" : "false"});
}

void FlagSet::AddInt(std::string name, int64_t* target, int64_t min, int64_t max,
                     std::string help) {
  flags_.push_back(
      {std::move(name), IntRange{target, min, max}, std::move(help), std::to_string(*target)});
}

void FlagSet::AddDouble(std::string name, double* target, double min, double max,
                        std::string help) {
  flags_.push_back({std::move(name), DoubleRange{target, min, max}, std::move(help),
                    absl::StrFormat("%g", *target)});
}

void FlagSet::AddSize(std::string name, uint64_t* target, std::string help) {
  flags_.push_back({std::move(name), SizeTarget{target}, std::move(help), std::to_string(*target)});
}

void FlagSet::AddString(std::string name, std::string* target, std::string help) {
  flags_.push_back({std::move(name), target, std::move(help), "\"" + *target + "\""});
}

FlagSet::Flag* FlagSet::Find(std::string_view name) {
  for (Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool FlagSet::SetValue(Flag* flag, std::string_view value, std::string* error) {
  const std::string where = "bad value for --" + flag->name + ": '" + std::string(value) + "' ";
  if (bool** b = std::get_if<bool*>(&flag->target)) {
    if (value == "true" || value == "1")
      **b = true;
    else if (value == "false" || value == "0")
      **b = false;
    else
      return Fail(error, where + "is not true/false");
  } else if (IntRange* r = std::get_if<IntRange>(&flag->target)) {
    int64_t n = 0;
    if (!ParseInt64(value, &n)) return Fail(error, where + "is not an integer");
    if (n < r->min || n > r->max) {
      return Fail(error, where + "is out of range [" + std::to_string(r->min) + ", " +
                             std::to_string(r->max) + "]");
    }
    *r->target = n;
  } else if (DoubleRange* r = std::get_if<DoubleRange>(&flag->target)) {
    double x = 0;
    const char* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, x);
    const bool out_of_range = ec == std::errc::result_out_of_range && ptr == end;
    if (!out_of_range && (value.empty() || ec != std::errc() || ptr != end || !std::isfinite(x))) {
      return Fail(error, where + "is not a number");
    }
    if (out_of_range || x < r->min || x > r->max) {
      return Fail(error, where + absl::StrFormat("is out of range [%g, %g]", r->min, r->max));
    }
    *r->target = x;
  } else if (SizeTarget* s = std::get_if<SizeTarget>(&flag->target)) {
    if (!ParseSizeBytes(value, s->target)) {
      return Fail(error, where + "is not a byte count (e.g. 67108864 or 64M)");
    }
  } else {
    *std::get<std::string*>(flag->target) = std::string(value);
  }
  return true;
}

bool FlagSet::Parse(std::span<const std::string> args, std::string* error) {
  const std::string see = " (see 'shale help " + command_ + "')";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      positional_.insert(positional_.end(), args.begin() + static_cast<ptrdiff_t>(i) + 1,
                         args.end());
      return true;
    }
    if (!arg.starts_with("--") || arg.size() == 2) {
      positional_.emplace_back(arg);
      continue;
    }
    arg.remove_prefix(2);
    const size_t eq = arg.find('=');
    Flag* flag = Find(arg.substr(0, eq));
    if (flag == nullptr) {
      return Fail(error, "unknown flag --" + std::string(arg.substr(0, eq)) + see);
    }
    if (flag->given) return Fail(error, "flag --" + flag->name + " given twice" + see);
    flag->given = true;
    if (eq != std::string_view::npos) {
      if (!SetValue(flag, arg.substr(eq + 1), error)) return false;
    } else if (std::holds_alternative<bool*>(flag->target)) {
      *std::get<bool*>(flag->target) = true;
    } else if (i + 1 < args.size()) {
      if (!SetValue(flag, args[++i], error)) return false;
    } else {
      return Fail(error, "flag --" + flag->name + " needs a value" + see);
    }
  }
  return true;
}

std::string FlagSet::Usage() const {
  std::string out;
  for (const Flag& f : flags_) {
    std::string left = "  --" + f.name;
    left.resize(std::max<size_t>(left.size() + 1, 24), ' ');
    out += left + f.help + " (default " + f.default_text + ")\n";
  }
  return out;
}

}  // namespace shale::cli
