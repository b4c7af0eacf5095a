// RunDiffLog: plays a log against one engine. See diff_engine.h.
#include <cassert>

#include "absl/strings/str_cat.h"
#include "scenarios/diff/diff_engine.h"
#include "scenarios/diff/diff_log.h"

namespace shale::scenario {

namespace {

using Kind = DiffOp::Kind;

// "ok", or "error" with the status kept in *error (the first one wins).
std::string Answer(const Status& s, Status* error) {
  if (s.ok()) return "ok";
  if (error->ok()) *error = s;
  return "error";
}

std::string Iterate(const DiffOp& op, DiffEngine* engine, Status* error) {
  std::unique_ptr<DiffCursor> c = engine->NewCursor(op.snapshot);
  switch (op.seek) {
    case DiffOp::Seek::kFirst:
      c->SeekToFirst();
      break;
    case DiffOp::Seek::kLast:
      c->SeekToLast();
      break;
    case DiffOp::Seek::kSeek:
      c->Seek(op.key);
      break;
    case DiffOp::Seek::kSeekForPrev:
      c->SeekForPrev(op.key);
      break;
  }
  std::string out;
  for (int i = 0; c->Valid(); i++) {
    absl::StrAppend(&out, c->key().ToString(), "=", c->value().ToString(), " ");
    if (i == op.steps) return out;
    const bool turned = op.turn_after >= 0 && i >= op.turn_after;
    op.forward != turned ? c->Next() : c->Prev();
  }
  return out + (c->status().ok() ? "end" : Answer(c->status(), error));
}

// The op's answer. A failed call also lands in *error: no fault is
// injected, so no call may fail.
std::string Play(const DiffOp& op, DiffEngine* engine, Status* error) {
  switch (op.kind) {
    case Kind::kPut:
      return Answer(engine->Put(op.key, op.value), error);
    case Kind::kDelete:
      return Answer(engine->Delete(op.key), error);
    case Kind::kWrite:
      return Answer(engine->Write(op.batch), error);
    case Kind::kSnapshot:
      engine->TakeSnapshot(op.snapshot);
      return "ok";
    case Kind::kRelease:
      engine->ReleaseSnapshot(op.snapshot);
      return "ok";
    case Kind::kGet: {
      std::string value;
      const Status s = engine->Get(op.key, op.snapshot, &value);
      return s.ok() ? "=" + value : s.IsNotFound() ? "not found" : Answer(s, error);
    }
    case Kind::kIterate:
      return Iterate(op, engine, error);
    case Kind::kFlush:
      return Answer(engine->Flush(), error);
    case Kind::kCompact:
      return Answer(engine->CompactRange(op.key, op.end), error);
    case Kind::kReopen: {
      const std::string closed = Answer(engine->Close(), error);
      return closed + "/" + Answer(engine->Open(), error);
    }
  }
  assert(false);
  return "?";
}

}  // namespace

Status RunDiffLog(const std::vector<DiffOp>& ops, DiffEngine* engine,
                  std::vector<std::string>* answers, std::string* where) {
  answers->clear();
  *where = "open";
  Status s = engine->Open();
  if (!s.ok()) return s;
  for (size_t i = 0; i < ops.size(); i++) {
    Status error;
    answers->push_back(Play(ops[i], engine, &error));
    if (!error.ok()) {
      *where = absl::StrCat("op ", i + 1, " (", DescribeDiffOp(ops[i]), ")");
      return error;  // the engine may be closed now (a failed reopen)
    }
  }
  *where = "close";
  return engine->Close();
}

}  // namespace shale::scenario

namespace shale::scenario {

namespace {
DiffEngineFactory rocksdb_factory = nullptr;
}  // namespace

void SetRocksDbDiffEngineFactory(DiffEngineFactory factory) { rocksdb_factory = factory; }
DiffEngineFactory RocksDbDiffEngineFactory() { return rocksdb_factory; }

}  // namespace shale::scenario
