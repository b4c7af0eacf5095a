// DiffEngine: one engine as a differential run drives it, and RunDiffLog,
// which plays a log (diff_log.h) against it and writes down every answer.
//
// Answers are canonical strings, so two engines compare by equality:
//   a write, snapshot, release, flush or compaction: "ok"; a reopen:
//     "ok/ok" (the close, then the open);
//   a Get: "=" + value or "not found";
//   an iterator: every "key=value" it was positioned on, in order, then
//     "end" when it ran off.
// A failed call answers "error" and ends the log: nothing injects faults,
// so an error is a failure of its own, never an answer two engines may
// share.
//
// Thread safety: one thread drives an engine. Ownership: RunDiffLog
// borrows the engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scenarios/diff/diff_log.h"
#include "shale/slice.h"
#include "shale/status.h"

namespace shale::scenario {

// An iterator over one engine, at a snapshot or the latest state.
class DiffCursor {
 public:
  virtual ~DiffCursor() = default;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  virtual void Seek(const Slice& target) = 0;
  virtual void SeekForPrev(const Slice& target) = 0;
  virtual void Next() = 0;  // REQUIRES: Valid()
  virtual void Prev() = 0;  // REQUIRES: Valid()
  virtual bool Valid() const = 0;
  virtual Slice key() const = 0;    // REQUIRES: Valid()
  virtual Slice value() const = 0;  // REQUIRES: Valid()
  [[nodiscard]] virtual Status status() const = 0;
};

class DiffEngine {
 public:
  virtual ~DiffEngine() = default;
  // The engine's name in failure messages ("shale", "rocksdb").
  virtual std::string name() const = 0;
  // Opens the DB (creating it the first time). REQUIRES: not open.
  [[nodiscard]] virtual Status Open() = 0;
  // Releases every snapshot, then closes. REQUIRES: open.
  [[nodiscard]] virtual Status Close() = 0;
  [[nodiscard]] virtual Status Put(const Slice& key, const Slice& value) = 0;
  [[nodiscard]] virtual Status Delete(const Slice& key) = 0;
  // One atomic batch of the entries.
  [[nodiscard]] virtual Status Write(const std::vector<DiffOp::BatchEntry>& batch) = 0;
  // Takes a snapshot named id; REQUIRES: id not live.
  virtual void TakeSnapshot(int id) = 0;
  // REQUIRES: id live.
  virtual void ReleaseSnapshot(int id) = 0;
  // snapshot -1: the latest state; else REQUIRES: live.
  [[nodiscard]] virtual Status Get(const Slice& key, int snapshot, std::string* value) = 0;
  virtual std::unique_ptr<DiffCursor> NewCursor(int snapshot) = 0;
  [[nodiscard]] virtual Status Flush() = 0;
  // begin and end empty: everything; else the inclusive range.
  [[nodiscard]] virtual Status CompactRange(const std::string& begin, const std::string& end) = 0;
};

// Opens engine, plays ops, closes it; one answer per op played in
// *answers. Nothing injects faults, so any failed call (an Open, a write, a
// Get other than NotFound, an iterator's status, a Flush, a CompactRange,
// either half of a reopen, the last Close) is an error: the log stops
// there, and the first such status is returned, with *where naming the
// call ("open", "op N (...)", "close"). The engine may be left closed.
[[nodiscard]] Status RunDiffLog(const std::vector<DiffOp>& ops, DiffEngine* engine,
                                std::vector<std::string>* answers, std::string* where);

}  // namespace shale::scenario

namespace shale::scenario {

// Makes an engine whose files live in the directory path (created by
// Open, left behind by Close; the caller removes it).
using DiffEngineFactory = std::unique_ptr<DiffEngine> (*)(const std::string& path);

// The RocksDB engine for `shale diff --against rocksdb`: set at start by a
// binary built with the comparison engines (bench/compare/); null until
// then. REQUIRES: set before any worker starts.
void SetRocksDbDiffEngineFactory(DiffEngineFactory factory);
DiffEngineFactory RocksDbDiffEngineFactory();

}  // namespace shale::scenario
