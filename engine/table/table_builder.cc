#include "table/table_builder.h"

#include "db/dbformat.h"
#include "table/block_builder.h"
#include "table/filter_block.h"
#include "table/format.h"
#include "table/table.h"
#include "util/check.h"
#include "util/compression.h"

namespace shale {

struct TableBuilder::Rep {
  Rep(const TableOptions& opts, WritableFileWriter* f)
      : options(opts),
        file(f),
        offset(f->GetFileSize()),
        data_block(opts.block_restart_interval),
        index_block(1) {
    SHALE_CHECK(options.comparator != nullptr);
    if (options.bloom_bits_per_key > 0) {
      filter = std::make_unique<BloomFilterBuilder>(options.bloom_bits_per_key);
    }
    props.compression = options.compression;
    if (options.compression != kNoCompression) {
      compressor = std::make_unique<BlockCompressor>(options.compression);
    }
  }

  const TableOptions options;
  WritableFileWriter* const file;
  uint64_t offset;                 // file offset of the next block
  uint64_t tail_start_offset = 0;  // set by Finish: where the meta blocks start
  Status status;
  BlockBuilder data_block;
  BlockBuilder index_block;  // restart interval 1: every separator whole
  std::unique_ptr<BloomFilterBuilder> filter;
  std::unique_ptr<BlockCompressor> compressor;  // null: every block raw
  std::string compressed;                       // scratch for the compressor
  std::string last_key;
  TableProperties props;
  bool closed = false;
  bool plant_filter_skips_first_key = false;
  std::string planted_skipped_user_key;  // the first user key, left out of the filter
  // The index entry of the last data block waits for the next key so its
  // separator can be shortened against it.
  bool pending_index_entry = false;
  BlockHandle pending_handle;

  // Appends raw compressed, or raw itself when compression is off or does
  // not save an eighth; sets *handle.
  void WriteBlock(const Slice& raw, BlockHandle* handle) {
    if (compressor != nullptr && compressor->Compress(raw, &compressed) &&
        GoodCompressionRatio(compressed.size(), raw.size())) {
      WriteRawBlock(compressed, compressor->type(), handle);
    } else {
      WriteRawBlock(raw, kNoCompression, handle);
    }
  }

  // Appends contents and its trailer at `offset`; sets *handle.
  void WriteRawBlock(const Slice& contents, CompressionType type, BlockHandle* handle) {
    // The block lands where its handle says: a reader reads it there and
    // its checksum covers that offset.
    SHALE_CHECK(file->GetFileSize() == offset);
    *handle = BlockHandle(offset, contents.size());
    char trailer[kBlockTrailerBytes];
    trailer[0] = static_cast<char>(type);
    EncodeFixed32(trailer + 1, BlockChecksum(contents, type, offset));
    status = file->Append(contents);
    if (status.ok()) status = file->Append(Slice(trailer, sizeof(trailer)));
    if (status.ok()) offset += contents.size() + kBlockTrailerBytes;
  }

  void FlushDataBlock();
};

TableBuilder::TableBuilder(const TableOptions& options, WritableFileWriter* file)
    : rep_(std::make_unique<Rep>(options, file)) {}

TableBuilder::~TableBuilder() { SHALE_CHECK(rep_->closed); }

Status TableBuilder::status() const { return rep_->status; }
uint64_t TableBuilder::NumEntries() const { return rep_->props.num_entries; }
uint64_t TableBuilder::FileSize() const { return rep_->offset; }

void TableBuilder::PlantFilterSkipsFirstKey() {
  SHALE_CHECK(rep_->props.num_entries == 0);
  rep_->plant_filter_skips_first_key = true;
}

uint64_t TableBuilder::TailSizeBytes() const {
  SHALE_CHECK(rep_->closed && rep_->status.ok());
  SHALE_CHECK(rep_->tail_start_offset < rep_->offset);
  return rep_->offset - rep_->tail_start_offset;
}

void TableBuilder::Add(const Slice& internal_key, const Slice& value) {
  Rep* r = rep_.get();
  SHALE_CHECK(!r->closed);
  if (!r->status.ok()) return;
  ParsedInternalKey parsed;
  if (!ParseInternalKey(internal_key, &parsed)) {
    r->status = Status::InvalidArgument("table builder: malformed internal key");
    return;
  }
  if (r->props.num_entries > 0 && r->options.comparator->Compare(internal_key, r->last_key) <= 0) {
    r->status = Status::InvalidArgument("table builder: keys out of order");
    return;
  }
  if (r->pending_index_entry) {
    r->options.comparator->FindShortestSeparator(&r->last_key, internal_key);
    std::string handle;
    r->pending_handle.EncodeTo(&handle);
    r->index_block.Add(r->last_key, handle);
    r->pending_index_entry = false;
  }
  if (r->plant_filter_skips_first_key && r->props.num_entries == 0) {
    r->planted_skipped_user_key = parsed.user_key.ToString();
  }
  const bool planted_skip =
      r->plant_filter_skips_first_key && parsed.user_key == Slice(r->planted_skipped_user_key);
  if (r->filter && !planted_skip) r->filter->AddKey(parsed.user_key);
  r->last_key.assign(internal_key.data(), internal_key.size());

  TableProperties& p = r->props;
  if (p.num_entries == 0 || parsed.sequence < p.smallest_seqno) p.smallest_seqno = parsed.sequence;
  if (p.num_entries == 0 || parsed.sequence > p.largest_seqno) p.largest_seqno = parsed.sequence;
  p.num_entries++;
  if (parsed.type == kTypeDeletion) p.num_deletions++;
  p.raw_key_bytes += internal_key.size();
  p.raw_value_bytes += value.size();

  r->data_block.Add(internal_key, value);
  if (r->data_block.CurrentSizeEstimate() >= r->options.block_size) r->FlushDataBlock();
}

void TableBuilder::Rep::FlushDataBlock() {
  Rep* r = this;
  if (!r->status.ok() || r->data_block.empty()) return;
  SHALE_CHECK(!r->pending_index_entry);
  const Slice contents = r->data_block.Finish();
  WriteBlock(contents, &r->pending_handle);
  r->data_block.Reset();
  if (!r->status.ok()) return;
  r->pending_index_entry = true;
  r->props.num_data_blocks++;
  r->props.data_size_bytes += r->pending_handle.size() + kBlockTrailerBytes;
}

Status TableBuilder::Finish() {
  Rep* r = rep_.get();
  SHALE_CHECK(!r->closed);
  r->FlushDataBlock();
  r->closed = true;
  r->tail_start_offset = r->offset;
  BlockBuilder metaindex(1);
  BlockHandle handle;
  std::string encoded;
  // Only the index block is compressed; the filter is read bit by bit and
  // the properties and metaindex are small.
  auto write = [&](const Slice& contents, bool compress = false) {
    if (r->status.ok()) {
      if (compress) {
        r->WriteBlock(contents, &handle);
      } else {
        r->WriteRawBlock(contents, kNoCompression, &handle);
      }
    }
    encoded.clear();
    handle.EncodeTo(&encoded);
    return handle.size() + kBlockTrailerBytes;
  };
  if (r->filter) {
    r->props.filter_size_bytes = write(r->filter->Finish());
    metaindex.Add(kFilterBlockName, encoded);
  }
  if (r->pending_index_entry) {
    r->options.comparator->FindShortSuccessor(&r->last_key);
    std::string pending;
    r->pending_handle.EncodeTo(&pending);
    r->index_block.Add(r->last_key, pending);
    r->pending_index_entry = false;
  }
  r->props.index_size_bytes = write(r->index_block.Finish(), /*compress=*/true);
  Footer footer;
  footer.index_handle = handle;
  std::string props;
  EncodeTableProperties(r->props, &props);
  write(props);
  metaindex.Add(kPropertiesBlockName, encoded);
  write(metaindex.Finish());
  footer.metaindex_handle = handle;
  if (!r->status.ok()) return r->status;
  std::string footer_bytes;
  footer.EncodeTo(&footer_bytes);
  r->status = r->file->Append(footer_bytes);
  if (r->status.ok()) r->offset += footer_bytes.size();
  return r->status;
}

void TableBuilder::Abandon() {
  SHALE_CHECK(!rep_->closed);
  rep_->closed = true;
}

}  // namespace shale
