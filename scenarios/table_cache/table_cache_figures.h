// The names under which a table-cache run reports its figures
// (RunResult::observed), shared by the run and the campaign report, which
// sums them over seeds and renders the table and its plot
// (report/table_cache_study.h).
//
// Per run: "table-cache: files" (table files in the DB) and
// "table-cache: seeds" (1). Per (Env model, setting) pair, over the
// measured reads only: FigureName(env, setting, counter) for each counter.
#pragma once

#include <array>
#include <string>

namespace shale::scenario::table_cache_figures {

inline constexpr const char* kPrefix = "table-cache: ";
inline constexpr const char* kFiles = "table-cache: files";
inline constexpr const char* kSeeds = "table-cache: seeds";

// The Env models, in table order (sim/disk/host_cost_fs.h names them).
inline constexpr std::array<const char*, 2> kEnvs = {"rocksdb-5.9", "shale"};
// max_open_files as a share of the DB's table files, then unbounded.
inline constexpr std::array<const char*, 5> kSettings = {"5%", "20%", "50%", "100%", "-1"};
// The share in percent of each setting (0 for -1).
inline constexpr std::array<int, 5> kSettingPercents = {5, 20, 50, 100, 0};

inline constexpr const char* kGets = "gets";
inline constexpr const char* kOpens = "reader opens";
inline constexpr const char* kSyscalls = "syscalls";
inline constexpr const char* kSimNs = "sim ns";
inline constexpr const char* kMaxOpenFiles = "max_open_files";

inline std::string FigureName(const std::string& env, const std::string& setting,
                              const char* counter) {
  return std::string(kPrefix) + env + " " + setting + ": " + counter;
}

}  // namespace shale::scenario::table_cache_figures
