#include "db/table_file_builder.h"
#include "util/check.h"

#include <algorithm>

namespace shale {

TableFileBuilder::~TableFileBuilder() {
  if (builder_ != nullptr) Abandon();
}

Status TableFileBuilder::Open(const std::string& path, uint64_t number) {
  SHALE_CHECK(builder_ == nullptr);
  path_ = path;
  meta_ = FileMetaData();
  meta_.number = number;
  meta_.smallest_seqno = kMaxSequenceNumber;
  std::unique_ptr<WritableFile> file;
  Status s = fs_->NewWritableFile(path, file_options_, &file);
  if (!s.ok()) return s;
  writer_ = std::make_unique<WritableFileWriter>(std::move(file), path, stats_);
  if ((planted_bugs_ & kBugUnalignedDirectWrite) != 0) writer_->PlantUnalignedDirectWrites();
  if ((planted_bugs_ & kBugSkipEndOfFileAfterPadding) != 0) writer_->PlantSkipEndOfFile();
  builder_ = std::make_unique<TableBuilder>(options_, writer_.get());
  if ((planted_bugs_ & kBugFilterSkipsFirstKey) != 0) builder_->PlantFilterSkipsFirstKey();
  return Status::OK();
}

void TableFileBuilder::Add(const Slice& internal_key, const Slice& value) {
  SHALE_CHECK(builder_ != nullptr);
  if (builder_->NumEntries() == 0) meta_.smallest.DecodeFrom(internal_key);
  meta_.largest.DecodeFrom(internal_key);
  const SequenceNumber seq = ExtractSequence(internal_key);
  meta_.smallest_seqno = std::min(meta_.smallest_seqno, seq);
  meta_.largest_seqno = std::max(meta_.largest_seqno, seq);
  builder_->Add(internal_key, value);
}

Status TableFileBuilder::Finish() {
  SHALE_CHECK(builder_ != nullptr);
  SHALE_CHECK(builder_->NumEntries() > 0);
  Status s = builder_->Finish();
  meta_.file_size = builder_->FileSize();
  if (s.ok()) meta_.tail_size_bytes = builder_->TailSizeBytes();
  if (s.ok()) s = writer_->Sync();
  Status close = writer_->Close();
  s = FirstError(s, close);
  builder_.reset();
  writer_.reset();
  return s;
}

void TableFileBuilder::Abandon() {
  if (builder_ == nullptr) return;
  builder_->Abandon();
  builder_.reset();
  // The file is garbage either way; the caller deletes it.
  writer_->Close().PermitUncheckedError();
  writer_.reset();
}

}  // namespace shale
