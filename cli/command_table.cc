#include "command_table.h"

#include <algorithm>

namespace shale::cli {
namespace {

const Command* FindCommand(std::span<const Command> commands, std::string_view name) {
  for (const Command& c : commands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int UnknownCommand(std::string_view name, std::ostream& err) {
  err << "shale: unknown subcommand '" << name << "' (see 'shale help')\n";
  return kExitUsage;
}

}  // namespace

int Dispatch(std::span<const Command> commands, std::span<const std::string> args,
             std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << "shale: no subcommand given (see 'shale help')\n";
    return kExitUsage;
  }
  const Command* command = FindCommand(commands, args[0]);
  if (command == nullptr) {
    // Conventional spellings of help/version work too.
    static const std::string kHelp[] = {"help"};
    static const std::string kVersion[] = {"version"};
    if (args[0] == "--help" || args[0] == "-h") return Dispatch(commands, kHelp, out, err);
    if (args[0] == "--version") return Dispatch(commands, kVersion, out, err);
    return UnknownCommand(args[0], err);
  }
  return command->run(args.subspan(1), out, err);
}

int RunHelp(std::span<const Command> commands, std::span<const std::string> args, std::ostream& out,
            std::ostream& err) {
  if (args.size() > 1) {
    err << "shale: help takes at most one subcommand (see 'shale help')\n";
    return kExitUsage;
  }
  if (args.empty()) {
    out << "usage: shale <command> [flags]\n\ncommands:\n";
    for (const Command& c : commands) {
      std::string name(c.name);
      name.resize(std::max<size_t>(name.size() + 1, 10), ' ');
      out << "  " << name << c.summary << "\n";
    }
    out << "\n'shale help <command>' shows a command's flags.\n";
    return kExitOk;
  }
  const Command* command = FindCommand(commands, args[0]);
  if (command == nullptr) return UnknownCommand(args[0], err);
  out << "shale " << command->name << ": " << command->summary << "\n";
  if (command->usage != nullptr) out << "\nflags:\n" << command->usage();
  return kExitOk;
}

}  // namespace shale::cli
