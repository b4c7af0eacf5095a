// The table-cache study over a campaign: the figures the `table-cache`
// runs reported (scenarios/table_cache/table_cache_figures.h), summed over
// seeds (Totals::table_cache), turned into a table per (Env model,
// max_open_files setting) and a plot of it.
//
// Per row: table-reader opens per Get, system calls per Get, and simulated
// Get/s (all measured Gets over all measured simulated time, so seeds
// weigh by their Gets), and the mean max_open_files the setting meant.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shale::report {

struct TableCacheRow {
  std::string env;            // "rocksdb-5.9", "shale"
  std::string setting;        // "5%", ..., "-1"
  double max_open_files = 0;  // mean over seeds (-1 for the unbounded setting)
  double opens_per_get = 0;
  double syscalls_per_get = 0;
  double gets_per_s = 0;
};

struct TableCacheStudy {
  uint64_t seeds = 0;
  double files = 0;                 // mean table files per seed's DB
  std::vector<TableCacheRow> rows;  // kEnvs x kSettings order
};

// Empty rows when no table-cache run reported figures.
TableCacheStudy ComputeTableCacheStudy(const std::map<std::string, uint64_t>& sums);

// A Markdown table, with the study's published figures under it.
std::string TableCacheMarkdown(const TableCacheStudy& study);
// A standalone SVG: Get/s (log scale) and opens per Get against the
// setting, one line per Env model.
std::string TableCacheSvg(const TableCacheStudy& study);

}  // namespace shale::report
