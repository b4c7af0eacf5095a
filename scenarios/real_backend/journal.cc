#include "scenarios/real_backend/journal.h"

#include <errno.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "scenarios/oracle/recovery_check.h"
#include "util/coding.h"

namespace shale::scenario {

namespace {

enum Kind : uint8_t {
  kBeginWrite = 1,
  kEndWrite,
  kBarrier,
  kBeginRead,
  kObserved,
  kTxn,
  kCommitId,
  kOpened,
  kFailed,
  kClosed,
  kWillCreate,
  kWillDelete,
  kWillRename,
  kDirSynced,
  kWillSync,
  kFileSynced,
  kReachedPoint,
  kFileCreated,
};

void PutString(std::string* dst, const std::string& s) { PutLengthPrefixedSlice(dst, Slice(s)); }

void PutValue(std::string* dst, const Value& v) {
  dst->push_back(v.has_value() ? 1 : 0);
  if (v.has_value()) PutString(dst, *v);
}

void PutOps(std::string* dst, const std::vector<KeyOp>& ops) {
  PutVarint64(dst, ops.size());
  for (const KeyOp& op : ops) {
    PutString(dst, op.key);
    PutValue(dst, op.value);
  }
}

// Signed phases (-1: none) travel as phase + 1.
void PutPhase(std::string* dst, int phase) { PutVarint64(dst, static_cast<uint64_t>(phase + 1)); }

// Reads fields off a payload; any short or bad read makes ok() false.
class Fields {
 public:
  explicit Fields(Slice in) : in_(in) {}
  bool ok() const { return ok_; }
  uint64_t U64() {
    uint64_t v = 0;
    ok_ = ok_ && GetVarint64(&in_, &v);
    return v;
  }
  bool Bool() {
    if (in_.empty()) ok_ = false;
    if (!ok_) return false;
    const bool b = in_[0] != 0;
    in_.remove_prefix(1);
    return b;
  }
  std::string String() {
    Slice s;
    ok_ = ok_ && GetLengthPrefixedSlice(&in_, &s);
    return ok_ ? s.ToString() : std::string();
  }
  Value Val() { return Bool() ? Value(String()) : Value(); }
  int Phase() { return static_cast<int>(U64()) - 1; }
  std::vector<KeyOp> Ops() {
    const uint64_t n = U64();
    std::vector<KeyOp> ops;
    for (uint64_t i = 0; ok_ && i < n; i++) {
      std::string key = String();
      ops.push_back(KeyOp{std::move(key), Val()});
    }
    return ops;
  }

 private:
  Slice in_;
  bool ok_ = true;
};

std::string Message(Kind kind) { return std::string(1, static_cast<char>(kind)); }

}  // namespace

void JournalWriter::Send(const std::string& payload, bool name_event) {
  std::string frame;
  PutFixed32(&frame, static_cast<uint32_t>(payload.size()));
  frame += payload;
  std::lock_guard<std::mutex> lock(mu_);
  if (name_event) name_events_++;
  size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = ::write(fd_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(3);  // the parent is gone: nothing left to report to
    done += static_cast<size_t>(n);
  }
}

void JournalWriter::BeganWrite(const std::vector<KeyOp>& ops, bool wal, bool sync) {
  std::string m = Message(kBeginWrite);
  PutOps(&m, ops);
  m.push_back(wal ? 1 : 0);
  m.push_back(sync ? 1 : 0);
  Send(m);
}

void JournalWriter::EndedWrite(uint64_t id, const Status& status, uint64_t sequence,
                               uint64_t visible_at) {
  std::string m = Message(kEndWrite);
  PutVarint64(&m, id);
  m.push_back(status.ok() ? 1 : 0);
  PutString(&m, status.ok() ? "" : status.ToString());
  PutVarint64(&m, sequence);
  PutVarint64(&m, visible_at);
  Send(m);
}

void JournalWriter::BarrierDone(Barrier barrier, uint64_t token) {
  std::string m = Message(kBarrier);
  PutVarint64(&m, static_cast<uint64_t>(barrier));
  PutVarint64(&m, token);
  Send(m);
}

void JournalWriter::BeganRead() { Send(Message(kBeginRead)); }

void JournalWriter::Observed(const std::string& key, const ReadStart& start,
                             const Value& observed) {
  std::string m = Message(kObserved);
  PutString(&m, key);
  PutVarint64(&m, start.since_acked);
  PutVarint64(&m, start.event);
  PutValue(&m, observed);
  Send(m);
}

void JournalWriter::WillCreate(const std::string& path) {
  std::string m = Message(kWillCreate);
  PutString(&m, path);
  Send(m, /*name_event=*/true);
}

void JournalWriter::WillDelete(const std::string& path, const std::string& trash) {
  std::string m = Message(kWillDelete);
  PutString(&m, path);
  PutString(&m, trash);
  Send(m, /*name_event=*/true);
}

void JournalWriter::WillRename(const std::string& src, const std::string& dst,
                               const std::string& dst_trash) {
  std::string m = Message(kWillRename);
  PutString(&m, src);
  PutString(&m, dst);
  PutString(&m, dst_trash);
  Send(m, /*name_event=*/true);
}

uint64_t JournalWriter::NameEventsSoFar() {
  std::lock_guard<std::mutex> lock(mu_);
  return name_events_;
}

void JournalWriter::DirSynced(const std::string& dir, uint64_t name_events) {
  std::string m = Message(kDirSynced);
  PutString(&m, dir);
  PutVarint64(&m, name_events);
  Send(m);
}

void JournalWriter::FileCreated(uint64_t inode) {
  std::string m = Message(kFileCreated);
  PutVarint64(&m, inode);
  Send(m);
}

void JournalWriter::WillSync(uint64_t inode) {
  std::string m = Message(kWillSync);
  PutVarint64(&m, inode);
  Send(m);
}

void JournalWriter::FileSynced(uint64_t inode, uint64_t size_bytes) {
  std::string m = Message(kFileSynced);
  PutVarint64(&m, inode);
  PutVarint64(&m, size_bytes);
  Send(m);
}

void JournalWriter::TxnChanged(const std::string& name, const NamedTxn& txn) {
  std::string m = Message(kTxn);
  PutString(&m, name);
  PutOps(&m, txn.ops);
  PutPhase(&m, txn.prepare_phase);
  PutVarint64(&m, txn.prepare_id);
  PutPhase(&m, txn.end_attempt_phase);
  m.push_back(static_cast<char>(txn.end));
  PutPhase(&m, txn.end_phase);
  PutVarint64(&m, txn.commit_id);
  m.push_back(txn.end_sync ? 1 : 0);
  m.push_back(txn.settled ? 1 : 0);
  Send(m);
}

void JournalWriter::CommitNoted(uint64_t id) {
  std::string m = Message(kCommitId);
  PutVarint64(&m, id);
  Send(m);
}

void JournalWriter::Opened() { Send(Message(kOpened)); }

void JournalWriter::ReachedPoint(const std::string& name) {
  std::string m = Message(kReachedPoint);
  PutString(&m, name);
  Send(m);
}

void JournalWriter::Failed(const Failure& f) {
  std::string m = Message(kFailed);
  for (const std::string* s : {&f.property, &f.key, &f.expected, &f.observed, &f.message}) {
    PutString(&m, *s);
  }
  Send(m);
}

void JournalWriter::Closed(const Status& status) {
  std::string m = Message(kClosed);
  if ((planted_bugs_ & kBugJournalCloseOmitsStatus) == 0) PutString(&m, status.ToString());
  Send(m);
}

bool JournalReplica::Feed(const char* data, size_t n, std::string* error) {
  pending_.append(data, n);
  size_t at = 0;
  while (pending_.size() - at >= 4) {
    const uint32_t length = DecodeFixed32(pending_.data() + at);
    if (length == 0 || length > kMaxJournalPayloadBytes) {
      *error = "journal frame of " + std::to_string(length) + " bytes";
      return false;
    }
    if (pending_.size() - at - 4 < length) break;
    if (!Apply(Slice(pending_.data() + at + 4, length), error)) return false;
    at += 4 + length;
  }
  pending_.erase(0, at);
  return true;
}

void JournalReplica::Note(std::string line) {
  if (lines_.size() < kMaxLines) {
    lines_.push_back(std::move(line));
  } else {
    lines_dropped_++;
  }
}

std::vector<std::string> JournalReplica::Lines() const {
  std::vector<std::string> lines = lines_;
  if (lines_dropped_ > 0) lines.push_back(absl::StrCat("(", lines_dropped_, " more left out)"));
  return lines;
}

bool JournalReplica::Apply(Slice payload, std::string* error) {
  const uint8_t kind = static_cast<uint8_t>(payload[0]);
  payload.remove_prefix(1);
  Fields f(payload);
  switch (kind) {
    case kBeginWrite: {
      std::vector<KeyOp> ops = f.Ops();
      const bool wal = f.Bool(), sync = f.Bool();
      if (!f.ok()) break;
      Note(absl::StrCat("begin write ", history_->writes().size(), ": ",
                        ops.empty() ? "a prepared section" : DescribeKeyOps(ops),
                        sync ? " (sync)" : "", wal ? "" : " (no WAL)"));
      (void)history_->BeginWrite(std::move(ops), wal, sync);
      writes_begun_++;
      return true;
    }
    case kEndWrite: {
      const uint64_t id = f.U64();
      const bool ok = f.Bool();
      const std::string text = f.String();
      const uint64_t sequence = f.U64(), visible_at = f.U64();
      if (!f.ok() || id >= history_->writes().size() ||
          history_->writes()[id].outcome != WriteRecord::Outcome::kPending) {
        break;
      }
      Note(ok ? absl::StrCat("ack write ", id, " at sequence ", sequence)
              : absl::StrCat("write ", id, " failed: ", text));
      history_->EndWrite(id, ok ? Status::OK() : Status::IOError(text), sequence, visible_at);
      return true;
    }
    case kBarrier: {
      const uint64_t barrier = f.U64();
      const uint64_t token = f.U64();
      if (!f.ok() || barrier > static_cast<uint64_t>(HistoryObserver::Barrier::kWalFlush)) break;
      static const char* const kNames[] = {"sync WAL", "flush", "close", "WAL flush"};
      Note(absl::StrCat(kNames[barrier], " done (the first ", token, " acknowledged writes)"));
      switch (static_cast<HistoryObserver::Barrier>(barrier)) {
        case HistoryObserver::Barrier::kSyncWal:
          history_->SyncWalDone(token);
          break;
        case HistoryObserver::Barrier::kFlush:
          history_->FlushDone(token);
          break;
        case HistoryObserver::Barrier::kClose:
          history_->CloseDone(token);
          break;
        case HistoryObserver::Barrier::kWalFlush:
          history_->WalFlushDone(token);
          break;
      }
      return true;
    }
    case kBeginRead:
      (void)history_->BeginRead();
      reads_begun_++;
      return true;
    case kObserved: {
      std::string key = f.String();
      ReadStart start;
      start.since_acked = f.U64();
      start.event = f.U64();
      const Value observed = f.Val();
      if (!f.ok()) break;
      (void)history_->Observe(key, start, observed);
      return true;
    }
    case kTxn: {
      const std::string name = f.String();
      NamedTxn t;
      t.ops = f.Ops();
      t.prepare_phase = f.Phase();
      t.prepare_id = f.U64();
      t.end_attempt_phase = f.Phase();
      t.end = static_cast<NamedTxn::End>(f.U64() & 0xff);
      t.end_phase = f.Phase();
      t.commit_id = f.U64();
      t.end_sync = f.Bool();
      t.settled = f.Bool();
      if (!f.ok()) break;
      state_->named_txns[name] = std::move(t);
      Note("transaction " + name + " recorded");
      return true;
    }
    case kCommitId: {
      const uint64_t id = f.U64();
      if (!f.ok()) break;
      state_->txn_commits.insert(id);
      return true;
    }
    case kOpened:
      opened_ = true;
      Note("opened");
      return true;
    case kFailed: {
      failure_.property = f.String();
      failure_.key = f.String();
      failure_.expected = f.String();
      failure_.observed = f.String();
      failure_.message = f.String();
      if (!f.ok()) break;
      failed_ = true;
      Note("failed: " + failure_.property + ": " + failure_.message);
      return true;
    }
    case kClosed: {
      const std::string text = f.String();
      if (!f.ok()) break;
      closed_ = true;
      Note("closed: " + text);
      return true;
    }
    case kWillCreate: {
      const std::string path = f.String();
      if (!f.ok()) break;
      ledger_->WillCreate(path);
      name_changes_++;
      Note("create " + path);
      return true;
    }
    case kWillDelete: {
      const std::string path = f.String(), trash = f.String();
      if (!f.ok()) break;
      ledger_->WillDelete(path, trash);
      name_changes_++;
      Note("delete " + path);
      return true;
    }
    case kWillRename: {
      const std::string src = f.String(), dst = f.String(), trash = f.String();
      if (!f.ok()) break;
      ledger_->WillRename(src, dst, trash);
      name_changes_++;
      Note("rename " + src + " to " + dst);
      return true;
    }
    case kDirSynced: {
      const std::string dir = f.String();
      const uint64_t events = f.U64();
      if (!f.ok()) break;
      ledger_->DirSynced(dir, events);
      Note(absl::StrCat("sync dir ", dir, ": the first ", events, " name changes are durable"));
      return true;
    }
    case kReachedPoint: {
      const std::string name = f.String();
      if (!f.ok()) break;
      point_reached_ = true;
      Note("reached engine point " + name + ": waiting for the kill");
      return true;
    }
    case kFileCreated: {
      const uint64_t inode = f.U64();
      if (!f.ok()) break;
      ledger_->FileCreated(inode);
      return true;
    }
    case kWillSync:
      (void)f.U64();
      if (!f.ok()) break;
      syncs_begun_++;
      return true;
    case kFileSynced: {
      const uint64_t inode = f.U64(), size = f.U64();
      if (!f.ok()) break;
      ledger_->FileSynced(inode, size);
      Note(absl::StrCat("synced inode ", inode, " through byte ", size));
      return true;
    }
    default:
      break;
  }
  *error = "malformed journal message of kind " + std::to_string(kind);
  return false;
}

}  // namespace shale::scenario
