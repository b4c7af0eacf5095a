#include "scenarios/crash_recovery/wal_markers.h"

#include <functional>

#include "db/write_batch_internal.h"
#include "scenarios/crash_recovery/fault_plan.h"
#include "shale/write_batch.h"
#include "wal/log_format.h"

namespace shale::scenario {

namespace {

// Collects the markers of one record's write batch.
class MarkerCollector final : public WriteBatch::Handler {
 public:
  explicit MarkerCollector(TxnMarkers* out) : out_(out) {}
  void Put(const Slice&, const Slice&) override {}
  void Delete(const Slice&) override {}
  void MarkEndPrepare(const Slice& xid) override { out_->prepared.insert(xid.ToString()); }
  void MarkCommit(const Slice& xid) override { out_->ended.insert(xid.ToString()); }
  void MarkRollback(const Slice& xid) override { out_->ended.insert(xid.ToString()); }

 private:
  TxnMarkers* const out_;
};

// Calls fn(begin, end, payload) for each whole record of contents: the
// bytes [begin, end) its fragments span, and its payload reassembled.
void ForEachWholeRecord(const std::string& contents,
                        const std::function<void(uint64_t, uint64_t, const std::string&)>& fn) {
  std::string payload;
  uint64_t begin = 0;
  for (const FragmentSpan& span : WholeFragments(contents, /*with_padding=*/true)) {
    const auto type = static_cast<uint8_t>(contents[span.offset + log::kHeaderSize - 1]);
    if (type == log::kPaddingType) continue;
    if (type == log::kFullType || type == log::kFirstType) {
      payload.clear();
      begin = span.offset;
    }
    payload.append(contents, span.offset + log::kHeaderSize, span.bytes - log::kHeaderSize);
    if (type == log::kFullType || type == log::kLastType)
      fn(begin, span.offset + span.bytes, payload);
  }
}

// The markers of the whole records that end after `from` and begin
// before `to`.
TxnMarkers MarkersOfRecordsBetween(const std::string& contents, uint64_t from, uint64_t to) {
  TxnMarkers markers;
  ForEachWholeRecord(contents, [&](uint64_t begin, uint64_t end, const std::string& payload) {
    if (end <= from || begin >= to) return;
    WriteBatch batch;
    MarkerCollector collector(&markers);
    // A record that is no write batch holds no marker.
    if (WriteBatchInternal::SetContents(&batch, payload).ok()) (void)batch.Iterate(&collector);
  });
  return markers;
}

}  // namespace

void TxnMarkers::Add(const TxnMarkers& other) {
  prepared.insert(other.prepared.begin(), other.prepared.end());
  ended.insert(other.ended.begin(), other.ended.end());
}

TxnMarkers TxnMarkersIn(const std::string& contents) {
  return MarkersOfRecordsBetween(contents, 0, contents.size());
}

TxnMarkers TxnMarkersSkippedByDamageAt(const std::string& contents, uint64_t offset) {
  return MarkersOfRecordsBetween(contents, offset, SkipResumesAt(contents, offset));
}

}  // namespace shale::scenario
