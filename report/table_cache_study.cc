// The table-cache study's table and plot. See table_cache_study.h.
#include "report/table_cache_study.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scenarios/table_cache/table_cache_figures.h"

namespace shale::report {

namespace fig = scenario::table_cache_figures;

namespace {

uint64_t Get(const std::map<std::string, uint64_t>& sums, const std::string& name) {
  const auto it = sums.find(name);
  return it == sums.end() ? 0 : it->second;
}

double Ratio(uint64_t a, uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

// The plot's geometry: two panels side by side.
constexpr int kPanelW = 360, kPanelH = 240, kLeft = 64, kTop = 36, kBottom = 44;
constexpr const char* kColors[] = {"#c0392b", "#2471a3"};

std::string Panel(const TableCacheStudy& s, int x0, bool log_scale, const char* title,
                  double (*value)(const TableCacheRow&)) {
  double hi = 1e-9;
  for (const TableCacheRow& r : s.rows) hi = std::max(hi, value(r));
  double lo = log_scale ? hi : 0.0;
  for (const TableCacheRow& r : s.rows) {
    if (log_scale && value(r) > 0) lo = std::min(lo, value(r));
  }
  if (log_scale) {
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));
  } else {
    hi = std::ceil(hi);
  }
  const int plot_w = kPanelW - kLeft - 16, plot_h = kPanelH - kTop - kBottom;
  const auto y_of = [&](double v) {
    const double f =
        log_scale
            ? (v <= 0 ? 0.0 : (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)))
            : v / hi;
    return kTop + plot_h - static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * plot_h));
  };
  const size_t n = fig::kSettings.size();
  const auto x_of = [&](size_t i) {
    return x0 + kLeft + static_cast<int>(i * static_cast<size_t>(plot_w) / (n - 1));
  };
  std::string out = absl::StrFormat(
      "<text x=\"%d\" y=\"20\" font-size=\"14\">%s</text>\n"
      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
      x0 + kLeft, title, x0 + kLeft, kTop, plot_w, plot_h);
  for (double v : {lo, hi}) {
    out +=
        absl::StrFormat("<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                        x0 + kLeft - 4, y_of(v) + 4,
                        v >= 1e6   ? absl::StrFormat("%gM", v / 1e6)
                        : v >= 1e3 ? absl::StrFormat("%gk", v / 1e3)
                                   : absl::StrFormat("%g", v));
  }
  for (size_t i = 0; i < n; i++) {
    out += absl::StrFormat(
        "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n", x_of(i),
        kTop + plot_h + 16, fig::kSettings[i]);
  }
  out += absl::StrFormat(
      "<text x=\"%d\" y=\"%d\" font-size=\"11\">max_open_files (share of the "
      "table files)</text>\n",
      x0 + kLeft, kTop + plot_h + 34);
  for (size_t e = 0; e < fig::kEnvs.size(); e++) {
    std::string points;
    for (size_t i = 0; i < n; i++) {
      const TableCacheRow& r = s.rows[e * n + i];
      absl::StrAppend(&points, x_of(i), ",", y_of(value(r)), " ");
    }
    out += absl::StrFormat(
        "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", points,
        kColors[e]);
  }
  return out;
}

}  // namespace

TableCacheStudy ComputeTableCacheStudy(const std::map<std::string, uint64_t>& sums) {
  TableCacheStudy s;
  s.seeds = Get(sums, fig::kSeeds);
  if (s.seeds == 0) return s;
  s.files = Ratio(Get(sums, fig::kFiles), s.seeds);
  for (const char* env : fig::kEnvs) {
    for (const char* setting : fig::kSettings) {
      const auto figure = [&](const char* counter) {
        return Get(sums, fig::FigureName(env, setting, counter));
      };
      TableCacheRow r;
      r.env = env;
      r.setting = setting;
      const uint64_t gets = figure(fig::kGets);
      r.max_open_files =
          std::string(setting) == "-1" ? -1.0 : Ratio(figure(fig::kMaxOpenFiles), s.seeds);
      r.opens_per_get = Ratio(figure(fig::kOpens), gets);
      r.syscalls_per_get = Ratio(figure(fig::kSyscalls), gets);
      r.gets_per_s = Ratio(gets, figure(fig::kSimNs)) * 1e9;
      s.rows.push_back(r);
    }
  }
  return s;
}

std::string TableCacheMarkdown(const TableCacheStudy& s) {
  if (s.rows.empty()) return "";
  std::string out = absl::StrFormat(
      "table-cache study: %d seeds, %.0f table files per DB on average, simulated 40-core host "
      "with an NVMe SSD\n\n"
      "| Env model | max_open_files | mean value | table-reader opens / Get | system calls / Get "
      "| simulated Get/s |\n|---|---|---:|---:|---:|---:|\n",
      s.seeds, s.files);
  for (const TableCacheRow& r : s.rows) {
    const std::string mof = r.max_open_files < 0 ? "-1" : absl::StrFormat("%.0f", r.max_open_files);
    absl::StrAppendFormat(&out, "| %s | %s | %s | %.3f | %.2f | %.0f |\n", r.env, r.setting, mof,
                          r.opens_per_get, r.syscalls_per_get, r.gets_per_s);
  }
  out +=
      "\nThe study's own figures (RocksDB 5.9, 40 cores at 90%, NVMe): about 1.2 ms of system "
      "calls per table-reader open; 14k Get/s with a small max_open_files, 300k Get/s with "
      "-1.\n";
  return out;
}

std::string TableCacheSvg(const TableCacheStudy& s) {
  if (s.rows.empty()) return "";
  const int width = 2 * kPanelW;
  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      width, kPanelH + 24);
  out += Panel(s, 0, true, "simulated Get/s (log)",
               [](const TableCacheRow& r) { return r.gets_per_s; });
  out += Panel(s, kPanelW, false, "table-reader opens per Get",
               [](const TableCacheRow& r) { return r.opens_per_get; });
  for (size_t e = 0; e < fig::kEnvs.size(); e++) {
    absl::StrAppendFormat(
        &out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s Env</text>\n",
        kLeft + static_cast<int>(e) * 160, kPanelH + 16, kColors[e], fig::kEnvs[e]);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace shale::report
