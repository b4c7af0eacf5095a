// The journal a real-backend child streams to its parent over a pipe: every
// change to its History (HistoryObserver) and to its named transactions,
// its milestones (opened, failed, closed), and, under the power-loss file
// system, every name change and sync (PowerLossEvents). The parent applies
// the messages in order (JournalReplica) and so holds, when it kills the
// child, what the child had recorded and what its files had made durable,
// whatever the child's memory held.
//
// Wire format: frames of a fixed32 payload length and the payload; a
// payload is one kind byte and that kind's fields (varints and
// length-prefixed strings, engine/util/coding.h). A frame cut short by the
// kill is dropped: every message is sent before the act it announces
// (a name change) or after the act it reports (an acknowledgement, a sync),
// so a lost message only makes the parent's view more cautious.
//
// Thread safety: JournalWriter is safe to call from any thread (one mutex
// orders the frames); JournalReplica is used by one thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "scenarios/crash_recovery/workload.h"
#include "scenarios/oracle/history.h"
#include "scenarios/real_backend/power_loss_fs.h"
#include "scenarios/real_backend/power_loss_ledger.h"
#include "scenarios/scenario.h"
#include "shale/slice.h"

namespace shale::scenario {

// The largest payload either side accepts (a write of a few keys, or a
// failure's text, is far smaller).
inline constexpr uint32_t kMaxJournalPayloadBytes = 1 << 20;

// The child's side. Every method frames one message and writes it whole
// before returning; if the parent is gone, the child exits at once.
class JournalWriter final : public HistoryObserver, public PowerLossEvents {
 public:
  // REQUIRES: fd is the write end of the pipe to the parent, open for the
  // writer's life. planted_bugs: the run's (kBugJournalCloseOmitsStatus
  // is this writer's).
  JournalWriter(int fd, uint64_t planted_bugs) : fd_(fd), planted_bugs_(planted_bugs) {}

  // HistoryObserver.
  void BeganWrite(const std::vector<KeyOp>& ops, bool wal, bool sync) override;
  void EndedWrite(uint64_t id, const Status& status, uint64_t sequence,
                  uint64_t visible_at) override;
  void BarrierDone(Barrier barrier, uint64_t token) override;
  void BeganRead() override;
  void Observed(const std::string& key, const ReadStart& start, const Value& observed) override;

  // PowerLossEvents.
  void WillCreate(const std::string& path) override;
  void WillDelete(const std::string& path, const std::string& trash) override;
  void WillRename(const std::string& src, const std::string& dst,
                  const std::string& dst_trash) override;
  uint64_t NameEventsSoFar() override;
  void DirSynced(const std::string& dir, uint64_t name_events) override;
  void FileCreated(uint64_t inode) override;
  void WillSync(uint64_t inode) override;
  void FileSynced(uint64_t inode, uint64_t size_bytes) override;

  // The record of the named transaction name, as it is now.
  void TxnChanged(const std::string& name, const NamedTxn& txn);
  void CommitNoted(uint64_t id);
  void Opened();
  // An engine thread reached the armed kill point (and waits there).
  void ReachedPoint(const std::string& name);
  void Failed(const Failure& failure);
  // The clients finished and Close returned status.
  void Closed(const Status& status);

 private:
  // Frames payload and writes it, counting it as a name event if it is
  // one (under mu_: the count is the parent's arrival order).
  void Send(const std::string& payload, bool name_event = false);

  const int fd_;
  const uint64_t planted_bugs_;
  std::mutex mu_;
  uint64_t name_events_ = 0;  // WillCreate/WillDelete/WillRename sent so far
};

// The parent's side: what the messages so far say.
class JournalReplica {
 public:
  // REQUIRES: history is empty and made with the child's read visibility;
  // state->named_txns and txn_commits are empty. All three outlive this.
  JournalReplica(History* history, WorkloadState* state, PowerLossLedger* ledger)
      : history_(history), state_(state), ledger_(ledger) {}

  // Appends bytes read from the pipe and applies every whole frame in them.
  // False with *error if a frame is malformed (a bug: the child and the
  // parent are one binary).
  [[nodiscard]] bool Feed(const char* data, size_t n, std::string* error);

  uint64_t writes_begun() const { return writes_begun_; }
  uint64_t syncs_begun() const { return syncs_begun_; }
  uint64_t reads_begun() const { return reads_begun_; }
  uint64_t name_changes() const { return name_changes_; }
  bool opened() const { return opened_; }
  bool point_reached() const { return point_reached_; }
  bool closed() const { return closed_; }
  bool failed() const { return failed_; }
  const Failure& failure() const { return failure_; }
  // Bytes of a frame the child did not finish (dropped).
  size_t unfinished_bytes() const { return pending_.size(); }
  // One line per message applied, for a failure file (at most kMaxLines;
  // the count of those left out is the last line).
  std::vector<std::string> Lines() const;
  static constexpr size_t kMaxLines = 200'000;

 private:
  [[nodiscard]] bool Apply(Slice payload, std::string* error);
  void Note(std::string line);

  History* const history_;
  WorkloadState* const state_;
  PowerLossLedger* const ledger_;
  std::string pending_;
  uint64_t writes_begun_ = 0;
  uint64_t syncs_begun_ = 0;
  uint64_t reads_begun_ = 0;
  uint64_t name_changes_ = 0;
  bool opened_ = false;
  bool point_reached_ = false;
  bool closed_ = false;
  bool failed_ = false;
  Failure failure_;
  std::vector<std::string> lines_;
  uint64_t lines_dropped_ = 0;
};

}  // namespace shale::scenario
