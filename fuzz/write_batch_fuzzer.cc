// Fuzzes write-batch decoding (a WAL record's payload).
//
// Pins: no crash; a failure is Corruption; a batch that parses has exactly
// its header's count of records; and decode -> encode -> decode: the records
// re-added to a new batch (same sequence) parse back to the same records.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "db/write_batch_internal.h"
#include "fuzz_check.h"

namespace {

// Records every call, and rebuilds the batch from them.
class Recorder final : public shale::WriteBatch::Handler {
 public:
  void Put(const shale::Slice& key, const shale::Slice& value) override {
    log_.push_back("P" + Sized(key) + Sized(value));
    rebuilt_.Put(key, value);
  }
  void Delete(const shale::Slice& key) override {
    log_.push_back("D" + Sized(key));
    rebuilt_.Delete(key);
  }
  void MarkBeginPrepare() override {
    log_.push_back("B");
    shale::WriteBatchInternal::MarkBeginPrepare(&rebuilt_);
  }
  void MarkEndPrepare(const shale::Slice& xid) override { Marker('E', xid); }
  void MarkCommit(const shale::Slice& xid) override { Marker('C', xid); }
  void MarkRollback(const shale::Slice& xid) override { Marker('R', xid); }

  const std::vector<std::string>& log() const { return log_; }
  shale::WriteBatch* rebuilt() { return &rebuilt_; }

 private:
  static std::string Sized(const shale::Slice& s) {
    return std::to_string(s.size()) + ":" + s.ToString();
  }
  void Marker(char kind, const shale::Slice& xid) {
    log_.push_back(std::string(1, kind) + Sized(xid));
    const uint8_t tag = kind == 'E'   ? shale::WriteBatchInternal::kTagEndPrepare
                        : kind == 'C' ? shale::WriteBatchInternal::kTagCommit
                                      : shale::WriteBatchInternal::kTagRollback;
    shale::WriteBatchInternal::AppendMarker(&rebuilt_, tag, xid);
  }

  std::vector<std::string> log_;
  shale::WriteBatch rebuilt_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const shale::Slice input(reinterpret_cast<const char*>(data), size);
  shale::WriteBatch batch;
  shale::Status s = shale::WriteBatchInternal::SetContents(&batch, input);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return 0;
  Recorder first;
  s = batch.Iterate(&first);
  FUZZ_CHECK_MSG(s.ok() || s.IsCorruption(), s.ToString());
  if (!s.ok()) return 0;
  FUZZ_CHECK(first.log().size() == shale::WriteBatchInternal::Count(&batch));

  shale::WriteBatch* rebuilt = first.rebuilt();
  shale::WriteBatchInternal::SetSequence(rebuilt, shale::WriteBatchInternal::Sequence(&batch));
  FUZZ_CHECK(shale::WriteBatchInternal::Count(rebuilt) == first.log().size());
  Recorder second;
  s = rebuilt->Iterate(&second);
  FUZZ_CHECK_MSG(s.ok(), s.ToString());
  FUZZ_CHECK(second.log() == first.log());
  FUZZ_CHECK(shale::WriteBatchInternal::Contents(second.rebuilt()).ToString().substr(12) ==
             shale::WriteBatchInternal::Contents(rebuilt).ToString().substr(12));
  return 0;
}
