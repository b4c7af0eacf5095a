// The subcommand table behind `shale <command> [flags]`, and the exit codes
// every command returns: 0 success, 1 a failure found or an
// operation failed, 2 bad usage or input (one error line on stderr).
//
// Adding a subcommand is one row in main.cc's table.
// Thread safety: stateless functions; call from one thread.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace shale::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// args are the words after the subcommand name.
using CommandFn = int (*)(std::span<const std::string> args, std::ostream& out, std::ostream& err);
// The command's flag help, or nullptr if it takes none.
using UsageFn = std::string (*)();

struct Command {
  std::string_view name;
  std::string_view summary;
  CommandFn run;
  UsageFn usage;
};

// Runs the command named by args[0] with args[1..]. Missing or unknown
// subcommand: one line on err, kExitUsage.
int Dispatch(std::span<const Command> commands, std::span<const std::string> args,
             std::ostream& out, std::ostream& err);

// `shale help [command]`: the overview, or one command's flags.
int RunHelp(std::span<const Command> commands, std::span<const std::string> args, std::ostream& out,
            std::ostream& err);

}  // namespace shale::cli
