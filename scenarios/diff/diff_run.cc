// RunDiffLog: plays a log against one engine. See diff_engine.h.
#include <cassert>

#include "absl/strings/str_cat.h"
#include "scenarios/diff/diff_engine.h"

namespace shale::scenario {

namespace {

using Kind = DiffOp::Kind;

std::string Answer(const Status& s) { return s.ok() ? "ok" : "error"; }

std::string Iterate(const DiffOp& op, DiffEngine* engine) {
  std::unique_ptr<DiffCursor> c = engine->NewCursor(op.snapshot);
  switch (op.seek) {
    case DiffOp::Seek::kFirst: c->SeekToFirst(); break;
    case DiffOp::Seek::kLast: c->SeekToLast(); break;
    case DiffOp::Seek::kSeek: c->Seek(op.key); break;
    case DiffOp::Seek::kSeekForPrev: c->SeekForPrev(op.key); break;
  }
  std::string out;
  for (int i = 0; c->Valid(); i++) {
    absl::StrAppend(&out, c->key().ToString(), "=", c->value().ToString(), " ");
    if (i == op.steps) return out;
    op.forward ? c->Next() : c->Prev();
  }
  return out + (c->status().ok() ? "end" : "error");
}

std::string Play(const DiffOp& op, DiffEngine* engine, bool* open) {
  switch (op.kind) {
    case Kind::kPut: return Answer(engine->Put(op.key, op.value));
    case Kind::kDelete: return Answer(engine->Delete(op.key));
    case Kind::kWrite: return Answer(engine->Write(op.batch));
    case Kind::kSnapshot: engine->TakeSnapshot(op.snapshot); return "ok";
    case Kind::kRelease: engine->ReleaseSnapshot(op.snapshot); return "ok";
    case Kind::kGet: {
      std::string value;
      const Status s = engine->Get(op.key, op.snapshot, &value);
      return s.ok() ? "=" + value : s.IsNotFound() ? "not found" : "error";
    }
    case Kind::kIterate: return Iterate(op, engine);
    case Kind::kFlush: return Answer(engine->Flush());
    case Kind::kCompact: return Answer(engine->CompactRange(op.key, op.end));
    case Kind::kReopen: {
      const Status closed = engine->Close();
      const Status opened = engine->Open();
      *open = opened.ok();
      return Answer(closed) + "/" + Answer(opened);
    }
  }
  return "?";
}

}  // namespace

Status RunDiffLog(const std::vector<DiffOp>& ops, DiffEngine* engine,
                  std::vector<std::string>* answers) {
  answers->clear();
  Status s = engine->Open();
  if (!s.ok()) return s;
  bool open = true;
  for (const DiffOp& op : ops) answers->push_back(open ? Play(op, engine, &open) : "closed");
  if (open) s = engine->Close();
  return s;
}

}  // namespace shale::scenario

namespace shale::scenario {

namespace {
DiffEngineFactory rocksdb_factory = nullptr;
}  // namespace

void SetRocksDbDiffEngineFactory(DiffEngineFactory factory) { rocksdb_factory = factory; }
DiffEngineFactory RocksDbDiffEngineFactory() { return rocksdb_factory; }

}  // namespace shale::scenario
