// SnapshotModel: the exact model the `snapshot` scenario checks reads at a
// snapshot against.
//
// It keeps, per key, every acknowledged version with the sequence number the
// engine stamped on it (a batch's first sequence + the op's index in the
// batch, as MemTableInserter numbers them). The state at sequence S is, per
// key, the newest version with sequence <= S (a delete version: absent).
//
// When may a read at snapshot S be compared? A write in flight when the
// snapshot was taken may already carry a sequence <= S (the engine publishes
// a write group's last sequence after the memtable insert, before its
// writers return), but its acknowledgement, and so its sequence, is not
// known yet. Every write BEGUN after GetSnapshot returned gets a sequence > S.
// So a snapshot records issued() when GetSnapshot returns, and the model is
// exact for it once CompleteBelow(that count) holds: no false alarms and no
// looseness. Until then its reads' answers are kept and compared later.
//
// A write that failed is not recorded (the scenario runs without faults, so
// any failure already ends the run as "no spurious errors").
//
// Thread safety: none (the simulation runs one task at a time).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/oracle/history.h"
#include "shale/status.h"

namespace shale::scenario {

class SnapshotModel {
 public:
  struct Version {
    uint64_t sequence = 0;
    Value value;  // nullopt: a delete
  };
  using VersionMap = std::map<std::string, std::vector<Version>>;  // versions ascending

  // Call just before DB::Write; returns the write's id (issue order).
  uint64_t BeginWrite();
  // Call when DB::Write returns. On OK, first_sequence is
  // batch.Sequence() and ops are the batch's ops in order.
  // REQUIRES: id came from BeginWrite and has not ended.
  void EndWrite(uint64_t id, const Status& status, const std::vector<KeyOp>& ops,
                uint64_t first_sequence);

  // Writes begun so far.
  uint64_t issued() const { return issued_; }
  // True when every write with id < issued_before has ended.
  bool CompleteBelow(uint64_t issued_before) const {
    return pending_.empty() || *pending_.begin() >= issued_before;
  }

  // The key's value at sequence seq: nullptr if absent.
  // REQUIRES: CompleteBelow(the snapshot's issued_before) for seq's snapshot.
  const std::string* ValueAt(const std::string& key, uint64_t seq) const;
  const VersionMap& versions() const { return versions_; }

 private:
  VersionMap versions_;
  std::set<uint64_t> pending_;  // ids begun and not ended
  uint64_t issued_ = 0;
};

// An iterator over the model's state at one sequence, with the DB
// iterator's positioning semantics (Seek: first key >= target; SeekForPrev:
// last key <= target). Invalid once it runs off either end; Next/Prev on an
// invalid cursor keep it invalid.
class ModelCursor {
 public:
  ModelCursor(const SnapshotModel* model, uint64_t seq) : model_(model), seq_(seq) {}
  void SeekToFirst();
  void SeekToLast();
  void Seek(const std::string& target);
  void SeekForPrev(const std::string& target);
  void Next();
  void Prev();
  bool Valid() const { return valid_; }
  // REQUIRES: Valid().
  const std::string& key() const { return it_->first; }
  const std::string& value() const { return *value_; }

 private:
  using It = SnapshotModel::VersionMap::const_iterator;
  // Moves forward (backward) from it_ to the first visible key.
  void SettleForward();
  void SettleBackward();
  bool Visible();  // sets value_ when the key at it_ is present at seq_

  const SnapshotModel* const model_;
  const uint64_t seq_;
  It it_;
  bool valid_ = false;
  const std::string* value_ = nullptr;
};

}  // namespace shale::scenario
