// FlagSet: the hand-rolled `--name=value` / `--name value` parser every
// subcommand uses.
//
// Hand-rolled rather than absl::ParseCommandLine because absl's parser
// prints multi-line errors and exits 1 on bad input, while the CLI contract
// (cli/command_table.h) is one error line and exit code 2 from a function the
// tests can call. Numbers are parsed with std::from_chars (strict: the whole
// value must be a number), so this file needs only the standard library.
//
// Syntax: `--name=value`, `--name value`; booleans also take bare `--name`
// (true) and accept true/false/1/0 after `=`. Sizes accept a K/M/G suffix
// (binary: 1K = 1024). "--" ends flags; positional arguments are collected.
//
// Thread safety: none. Ownership: target pointers must outlive Parse.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shale::cli {

class FlagSet {
 public:
  // command names the subcommand in error and help text ("bench").
  explicit FlagSet(std::string command) : command_(std::move(command)) {}

  void AddBool(std::string name, bool* target, std::string help);
  // A signed integer in [min, max].
  void AddInt(std::string name, int64_t* target, int64_t min, int64_t max, std::string help);
  // A finite decimal number in [min, max].
  void AddDouble(std::string name, double* target, double min, double max, std::string help);
  // A byte count with an optional K/M/G suffix.
  void AddSize(std::string name, uint64_t* target, std::string help);
  void AddString(std::string name, std::string* target, std::string help);

  // Parses args (everything after the subcommand). On failure returns false
  // with one line (no "shale:" prefix, no newline) in *error. A flag given
  // twice is an error: a second value would silently replace the first.
  [[nodiscard]] bool Parse(std::span<const std::string> args, std::string* error);

  const std::vector<std::string>& positional() const { return positional_; }
  // One line per flag: name, default (the target's value when added), help.
  std::string Usage() const;

 private:
  struct IntRange {
    int64_t* target;
    int64_t min;
    int64_t max;
  };
  struct DoubleRange {
    double* target;
    double min;
    double max;
  };
  struct SizeTarget {
    uint64_t* target;
  };
  using Target = std::variant<bool*, IntRange, DoubleRange, SizeTarget, std::string*>;
  struct Flag {
    std::string name;
    Target target;
    std::string help;
    std::string default_text;
    bool given = false;  // set by Parse
  };

  Flag* Find(std::string_view name);
  [[nodiscard]] bool SetValue(Flag* flag, std::string_view value, std::string* error);

  std::string command_;
  std::vector<Flag> flags_;
  std::vector<std::string> positional_;
};

// Strict parsers (whole string, no sign for unsigned, no overflow).
[[nodiscard]] bool ParseInt64(std::string_view text, int64_t* value);
[[nodiscard]] bool ParseSizeBytes(std::string_view text, uint64_t* value);

}  // namespace shale::cli
