#include "report/report_merge.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

#include "report/campaign_tally.h"
#include "report/file_io.h"
#include "report/report_reader.h"

namespace shale::report {
namespace {

// Where one entry's line is in the spill file.
struct IndexItem {
  uint64_t seed = 0;
  uint64_t offset = 0;
  uint32_t scenario = 0;  // rank of the scenario's name, once ranked
  uint32_t length = 0;
};

// Entry lines of every input, appended to an unlinked temporary file.
class Spill {
 public:
  ~Spill() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] bool Open(const std::string& near_path, std::string* error) {
    const std::string path = near_path + ".spill." + std::to_string(::getpid());
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) return Fail("cannot create " + path, error);
    ::unlink(path.c_str());
    return true;
  }
  [[nodiscard]] bool Append(std::string_view line, IndexItem* item, std::string* error) {
    item->offset = size_;
    item->length = static_cast<uint32_t>(line.size());
    if (::pwrite(fd_, line.data(), line.size(), static_cast<off_t>(size_)) !=
        static_cast<ssize_t>(line.size())) {
      return Fail("cannot write the merge's temporary file", error);
    }
    size_ += line.size();
    return true;
  }
  [[nodiscard]] bool Read(const IndexItem& item, std::string* line, std::string* error) const {
    line->resize(item.length);
    if (::pread(fd_, line->data(), item.length, static_cast<off_t>(item.offset)) !=
        static_cast<ssize_t>(item.length)) {
      return Fail("cannot read the merge's temporary file", error);
    }
    return true;
  }

 private:
  static bool Fail(std::string message, std::string* error) {
    *error = message + ": " + std::strerror(errno);
    return false;
  }
  int fd_ = -1;
  uint64_t size_ = 0;
};

struct Gathered {
  std::vector<CampaignInfo> campaigns;
  bool complete = true;
  std::vector<std::string> scenarios;  // by id
  std::vector<IndexItem> index;
};

bool Gather(const std::vector<std::string>& inputs, Spill* spill, CampaignTally* tally, Gathered* g,
            std::string* error) {
  std::map<std::string, uint32_t> ids;
  for (const std::string& path : inputs) {
    ReportHeader header;
    const bool ok = ReadReportFile(
        path, &header,
        [&](const SeedEntry& e, std::string_view line, std::string* err) {
          const auto [it, added] =
              ids.emplace(e.result.scenario, static_cast<uint32_t>(ids.size()));
          if (added) g->scenarios.push_back(e.result.scenario);
          IndexItem item;
          item.seed = e.result.seed;
          item.scenario = it->second;
          tally->Add(e);
          g->index.push_back(item);
          return spill->Append(line, &g->index.back(), err);
        },
        error);
    if (!ok) return false;
    g->campaigns.push_back(header.campaign);
    g->complete = g->complete && header.complete;
  }
  return true;
}

// Sorts by (scenario name, seed); false on a (scenario, seed) seen twice.
bool SortIndex(Gathered* g, std::string* error) {
  std::vector<uint32_t> rank(g->scenarios.size());
  std::vector<uint32_t> by_name(g->scenarios.size());
  for (uint32_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(),
            [&](uint32_t a, uint32_t b) { return g->scenarios[a] < g->scenarios[b]; });
  for (uint32_t r = 0; r < by_name.size(); ++r) rank[by_name[r]] = r;
  for (IndexItem& item : g->index) item.scenario = rank[item.scenario];
  std::sort(g->index.begin(), g->index.end(), [](const IndexItem& a, const IndexItem& b) {
    return std::tie(a.scenario, a.seed) < std::tie(b.scenario, b.seed);
  });
  for (size_t i = 1; i < g->index.size(); ++i) {
    const IndexItem& item = g->index[i];
    if (item.scenario == g->index[i - 1].scenario && item.seed == g->index[i - 1].seed) {
      *error = OverlapError(g->scenarios[by_name[item.scenario]], item.seed);
      return false;
    }
  }
  return true;
}

}  // namespace

bool MergeReportFiles(const std::vector<std::string>& inputs, const std::string& out_path,
                      Totals* totals, std::string* error) {
  Spill spill;
  CampaignTally tally(0);
  Gathered g;
  if (!spill.Open(out_path, error) || !Gather(inputs, &spill, &tally, &g, error) ||
      !SortIndex(&g, error)) {
    return false;
  }
  AtomicFile out;
  if (!out.Open(out_path, error)) return false;
  out.Append(EncodeReportHead(MergeCampaigns(g.campaigns, inputs)));
  std::string line;
  for (size_t i = 0; i < g.index.size(); ++i) {
    if (!spill.Read(g.index[i], &line, error)) return false;
    out.Append(i == 0 ? "\n" : ",\n");
    out.Append(line);
  }
  out.Append(EncodeReportTail(tally.totals(), tally.promises(), g.complete));
  if (!out.Commit(error)) return false;
  if (totals != nullptr) *totals = tally.totals();
  return true;
}

}  // namespace shale::report
