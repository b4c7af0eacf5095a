// History: what a workload did to the DB, as the oracle needs it.
//
// Every write the workload issues is recorded at its start (BeginWrite) and
// its end (EndWrite). An acknowledged write carries the sequence number the
// engine stamped on its batch, which orders it among all other writes. A
// write that returned an error is INDETERMINATE: it may or may not have
// happened, so the oracle treats it as optional.
//
// Durability (what a crash may not take away):
//   * WAL writes acknowledged with sync=true: durable at once;
//   * a successful SyncWAL() makes every WAL write acknowledged before the
//     call durable; a successful Flush() does the same for every write
//     acknowledged before the call, disable_wal ones included;
//   * a process crash (not a power loss) keeps every acknowledged WAL write
//     in the log file: all of them, unless the engine buffers its log in
//     its own memory (WalWrites::kByBarrier); then those a sync write,
//     FlushWAL, Flush or Close wrote out. There SyncWAL syncs only what is
//     in the file (SyncWalStart).
// Everything else may be lost, but only as a suffix of the acknowledged
// WAL writes in sequence order (prefix recovery); disable_wal writes that
// no flush covered may each be lost on their own.
//
// A write with no ops (a transaction's prepared section, which changes no
// key) is recorded with sequence 0: it orders before every other write and
// changes no state; only its durability (must_survive) is read.
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "shale/status.h"

namespace shale::scenario {

// One key update; value is nullopt for a delete.
struct KeyOp {
  std::string key;
  std::optional<std::string> value;
};

// A key's value in some state: nullopt means absent.
using Value = std::optional<std::string>;
using State = std::map<std::string, std::string>;
// Keys whose value is known only to be one of a few: those a crash check
// could not read (the engine reported damage under them), each with the
// values the check allowed it at any cut that fit the keys it did read.
using UnknownValues = std::map<std::string, std::vector<Value>>;

// A stable hash of a (key, value) the oracle compared, for the trace hash:
// runs with equal trace hashes read equal values.
uint64_t HashKeyValue(const std::string& key, const Value& value);

struct WriteRecord {
  enum class Outcome : uint8_t { kPending, kAcked, kFailed };
  uint64_t id = 0;  // issue order, for reports
  std::vector<KeyOp> ops;
  bool wal = true;
  bool sync = false;
  Outcome outcome = Outcome::kPending;
  // When acked: the first sequence of the WAL record recovery replays as
  // this write; it orders the write among all others (in a cut, and for
  // the value a key settles on).
  uint64_t sequence = 0;
  // When acked: the sequence from which snapshots see it (its commit's,
  // for a transaction whose data was logged at its Prepare; else sequence),
  // or 0 where that is not known (ReadVisibility::kWholeBatchPublishedLater).
  uint64_t visible_sequence = 0;
  bool must_survive = false;  // durable (see the file comment)
  // In the log file (WalWrites): a process crash, which keeps the page
  // cache, keeps it.
  bool written = false;
  // A Flush that began after it was acknowledged succeeded: it is in a
  // table, so no damage to a log can take it.
  bool flushed = false;
  uint64_t ack_index = std::numeric_limits<uint64_t>::max();  // position in acknowledgement order
  // Real time: the history's event counter when the write began and ended
  // (ended: max while pending). A write that began after another ended is
  // ordered after it.
  uint64_t begin_event = 0;
  uint64_t end_event = std::numeric_limits<uint64_t>::max();
  // The highest sequence of a write with ops acknowledged before this one
  // began: its own sequence must be higher (real-time order).
  uint64_t sequence_floor = 0;
  // The end of the first read whose value only this write explains (max:
  // none). Such a write happened, acknowledged or not: a read that begins
  // later may not see what it overwrote (until a crash).
  uint64_t observed_event = std::numeric_limits<uint64_t>::max();
  // Under ReadVisibility::kPerKey, the same for each key on its own: the
  // key and the end of the first read that observed this write there.
  std::vector<std::pair<std::string, uint64_t>> observed_keys;
};

// What a read that saw one key of a pending batch says about the others.
//   kWholeBatch  readers see a batch whole or not at all (every write mode
//                but unordered_write): the batch happened, every key of it.
//   kPerKey      readers may see part of a batch (unordered_write inserts
//                each key when its writer gets to it): only the key read
//                is known to have been written.
//   kWholeBatchPublishedLater
//                as kWholeBatch, but a write acknowledged without a
//                visible_at (EndWrite) may become visible to snapshots at a
//                sequence later than its own, which the writer is not told
//                (two write queues publish a plain write after logging it).
enum class ReadVisibility : uint8_t { kWholeBatch, kPerKey, kWholeBatchPublishedLater };

// When an acknowledged WAL write reaches the log file, where a process
// crash cannot take it.
//   kAtAck      before the write returns (every engine's default);
//   kByBarrier  the engine keeps the log's records in its own buffer
//               (RocksDB's manual_wal_flush) until a sync write, FlushWAL,
//               SyncWAL, a Flush or Close writes the buffer out: a write
//               is in the file once such a barrier that began after its
//               acknowledgement has returned (a sync write's own
//               durability orders the writes before it in).
enum class WalWrites : uint8_t { kAtAck, kByBarrier };

// When a read began (History::BeginRead): the count of acknowledged writes
// and the history's event counter at that moment.
struct ReadStart {
  uint64_t since_acked = 0;
  uint64_t event = 0;
};

// Told of every change a workload makes to a History, in order, so that
// another History given the same calls in the same order becomes the same
// (the real-backend scenario's child streams them to its parent, whose
// History then holds what the child's did when it was killed). Called
// after the change, from the thread that made it.
class HistoryObserver {
 public:
  virtual ~HistoryObserver() = default;
  virtual void BeganWrite(const std::vector<KeyOp>& ops, bool wal, bool sync) = 0;
  virtual void EndedWrite(uint64_t id, const Status& status, uint64_t sequence,
                          uint64_t visible_at) = 0;
  // SyncWalDone, FlushDone, CloseDone or WalFlushDone with token.
  enum class Barrier : uint8_t { kSyncWal, kFlush, kClose, kWalFlush };
  virtual void BarrierDone(Barrier barrier, uint64_t token) = 0;
  virtual void BeganRead() = 0;
  virtual void Observed(const std::string& key, const ReadStart& start, const Value& observed) = 0;
};

class History {
 public:
  // REQUIRES: base is the DB's exact state when recording starts.
  explicit History(State base, ReadVisibility visibility = ReadVisibility::kWholeBatch,
                   WalWrites wal_writes = WalWrites::kAtAck)
      : base_(std::move(base)), visibility_(visibility), wal_writes_(wal_writes) {}

  uint64_t BeginWrite(std::vector<KeyOp> ops, bool wal, bool sync);
  // sequence: see WriteRecord::sequence. visible_at: the sequence at which
  // readers began to see the write, when later than that (two write
  // queues publish a write after logging it; 0: the same).
  // REQUIRES: id came from BeginWrite and has not ended.
  void EndWrite(uint64_t id, const Status& status, uint64_t sequence, uint64_t visible_at = 0);

  // Call when SyncWAL() / Flush() STARTS; pass the token to the matching
  // *Done when it returns OK (writes acked before the start become durable).
  uint64_t DurabilityBarrierStart() const { return acked_count_; }
  // The token of a SyncWAL starting now: with a buffered log
  // (WalWrites::kByBarrier) it syncs only the records already in the file
  // (RocksDB's SyncWAL syncs without flushing the writer's buffer), those
  // of the writes a completed barrier wrote out; else as above. A sync
  // write, or FlushWAL(true), writes the buffer first: it takes
  // DurabilityBarrierStart's token.
  uint64_t SyncWalStart() const {
    return wal_writes_ == WalWrites::kAtAck ? acked_count_ : written_prefix_;
  }
  void SyncWalDone(uint64_t token);
  void FlushDone(uint64_t token);
  // A FlushWAL(sync=false) that started at token returned OK: the WAL
  // writes acknowledged before it are in the log file (WalWrites), and no
  // more durable than that.
  void WalFlushDone(uint64_t token);
  // A clean Close (started at token) flushed the writes that skipped the
  // WAL, as RocksDB's does, and wrote out the log's buffer; the others stay
  // as durable as the WAL made them (Close does not sync it).
  void CloseDone(uint64_t token);

  // The model's current state: base plus every acknowledged write in
  // sequence order (failed and pending writes left out).
  // REQUIRES: the base has no unknown keys.
  State ExpectedState() const;
  // Call when a read starts (before any snapshot it takes).
  ReadStart BeginRead() {
    const ReadStart start{acked_count_, ++events_};
    if (observer_ != nullptr) observer_->BeganRead();
    return start;
  }
  // Values key may have for a read that began at `start`: its value with
  // every write acknowledged before the read applied (the settled value),
  // or any value a pending, failed or later-acknowledged write gave it.
  //  * A failed write's value is no longer possible once a write to the key
  //    that began after the failed one returned was acknowledged before the
  //    read: that write is ordered after it, whether or not it happened.
  //  * The settled value is no longer possible once an earlier read ended
  //    having observed a not-yet-acknowledged write that began after the
  //    settled write was acknowledged (or any write, for a base value): the
  //    observed write happened and is ordered after it.
  // The first value is the settled one, if still possible; the rest are
  // the later writes' values.
  std::vector<Value> PossibleValues(const std::string& key, const ReadStart& start) const;
  // True if observed is one of PossibleValues(key, start), without copying
  // any value (the per-read check).
  bool IsPossible(const std::string& key, const ReadStart& start, const Value& observed) const;
  // IsPossible, and then, if observed is explained by exactly one write
  // not acknowledged before the read (and not by the settled value), marks
  // that write observed (see WriteRecord::observed_event). Call when the
  // read has returned.
  bool Observe(const std::string& key, const ReadStart& start, const Value& observed);
  // Writes Observe marked, over this History's life (Reset keeps it).
  uint64_t observed_writes() const { return observed_writes_; }
  // The highest sequence (or visible_at) of any acknowledged write with ops
  // so far: a snapshot taken now must be at or past it (fresh snapshots).
  uint64_t max_acked_sequence() const { return max_acked_sequence_; }

  // Exact state at a snapshot: base plus acked writes with sequence <= seq.
  // REQUIRES: no write is pending (so every sequence <= seq is known), and
  // the base has no unknown keys.
  State StateAtSequence(uint64_t seq) const;

  // The base's known keys; a key in base_unknown() is not among them.
  const State& base() const { return base_; }
  // The base's keys whose value is one of a few (Reset).
  const UnknownValues& base_unknown() const { return base_unknown_; }
  // The values key may have in the base: one, unless it is unknown.
  std::vector<Value> BaseValues(const std::string& key) const;
  const std::vector<WriteRecord>& writes() const { return writes_; }
  // The ids of the writes with an op on key, in issue order (none: empty).
  const std::vector<uint64_t>& WritesTo(const std::string& key) const;
  ReadVisibility visibility() const { return visibility_; }
  WalWrites wal_writes() const { return wal_writes_; }
  // A crash cut the writes still pending short: they become indeterminate.
  void AbandonPending();
  // Starts a fresh history from a recovered state (after a crash check):
  // base holds the keys the check read, unknown those it could not, with
  // the values each may have (a read of one returns one of them, until a
  // write to it is acknowledged). The values this history's writes and
  // base held are remembered (as fingerprints), so a later check can tell
  // a value brought back from an earlier phase (resurrection) from one
  // never written (a phantom).
  // REQUIRES: no key is in both base and unknown; no unknown key has an
  // empty list.
  void Reset(State base, UnknownValues unknown = {});
  // True if an earlier history (before the last Reset) wrote value to key
  // or held it in its base.
  bool WrittenInEarlierPhase(const std::string& key, const std::string& value) const;
  bool any_pending() const;
  // From now on, observer hears of every BeginWrite, EndWrite,
  // SyncWalDone, FlushDone, CloseDone, WalFlushDone, BeginRead and Observe
  // (nullptr: none); not of the constructor's arguments, which the
  // observer's own History must be given alike.
  // REQUIRES: observer outlives this History or is unset first.
  void set_observer(HistoryObserver* observer) { observer_ = observer; }

 private:
  // When a read first observed w's op on key (max: never), as visibility_
  // says: for the whole batch or for that key alone.
  uint64_t ObservedEvent(const WriteRecord& w, const std::string& key) const;
  // Records that a read observed w (through key), ending now.
  void MarkObserved(WriteRecord* w, const std::string& key);

  // Acked writes sorted by sequence.
  std::vector<const WriteRecord*> AckedInOrder() const;

  struct Settled;
  // How many writes (the settled value counting as one) could have given
  // observed to a read that began at start; *only is the one later write
  // if that is the sole explanation, else nullptr.
  int Explanations(const std::string& key, const ReadStart& start, const Value& observed,
                   const WriteRecord** only) const;
  // Calls on_later(write, value) for each later write's value of key and
  // returns the settled value.
  template <typename LaterFn>
  Settled VisitPossible(const std::string& key, const ReadStart& start,
                        const LaterFn& on_later) const;
  // A barrier that ended with token: tells the observer, extends
  // written_prefix_, and calls mark(write) on each acked write it covers
  // (ack_order_[0, token)).
  template <typename MarkFn>
  void CoverAcked(HistoryObserver::Barrier barrier, uint64_t token, const MarkFn& mark);

  State base_;
  ReadVisibility visibility_;
  WalWrites wal_writes_;
  UnknownValues base_unknown_;
  std::vector<WriteRecord> writes_;  // in issue order; index == id
  uint64_t acked_count_ = 0;         // writes acked so far (any order)
  // The acked writes ack_order_[0, written_prefix_) are written (a barrier
  // that wrote the log out covered them); with WalWrites::kAtAck, unused.
  uint64_t written_prefix_ = 0;
  uint64_t max_acked_sequence_ = 0;  // see max_acked_sequence()
  uint64_t events_ = 0;              // write begins and ends, read begins and observations
  uint64_t observed_writes_ = 0;     // see observed_writes()
  std::vector<uint64_t> ack_order_;  // ids in the order their acks arrived
  // For each key, the ids of the writes that touch it, in issue order, so a
  // read check costs the key's writes, not the whole history.
  std::map<std::string, std::vector<uint64_t>> writes_by_key_;
  // Fingerprints of (key, value) pairs of earlier histories: a few per
  // write, so the run's memory grows by 8 bytes per write at most.
  std::set<uint64_t> earlier_values_;
  HistoryObserver* observer_ = nullptr;
};

}  // namespace shale::scenario
