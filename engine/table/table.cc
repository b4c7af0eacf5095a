#include "table/table.h"

#include "table/block.h"
#include "table/filter_block.h"
#include "table/format.h"
#include "table/two_level_iterator.h"
#include "util/check.h"
#include "util/coding.h"
#include "util/probes.h"

namespace shale {

namespace {

// The cache key of the block at offset: fixed64(cache_id) | varint64(offset).
constexpr size_t kMaxCacheKeyBytes = 8 + 10;
Slice MakeCacheKey(uint64_t cache_id, uint64_t offset, char* buf) {
  EncodeFixed64(buf, cache_id);
  char* end = EncodeVarint64(buf + 8, offset);
  return Slice(buf, static_cast<size_t>(end - buf));
}

void DeleteCachedBlock(const Slice& /*key*/, void* value) { delete static_cast<Block*>(value); }

// A data block held for one read: pinned in the cache or owned outright.
class BlockRef {
 public:
  BlockRef() = default;
  BlockRef(const BlockRef&) = delete;
  BlockRef& operator=(const BlockRef&) = delete;
  ~BlockRef() { Reset(); }
  void SetCached(Cache* cache, Cache::Handle* handle) {
    cache_ = cache;
    handle_ = handle;
    block_ = static_cast<const Block*>(cache->Value(handle));
  }
  void SetOwned(std::unique_ptr<Block> block) {
    owned_ = std::move(block);
    block_ = owned_.get();
  }
  const Block* block() const { return block_; }
  // Hands ownership of the pin or block to iter (released when it dies).
  void TransferTo(Iterator* iter) {
    if (handle_ != nullptr) {
      iter->RegisterCleanup([cache = cache_, handle = handle_] { cache->Release(handle); });
      handle_ = nullptr;
    } else if (owned_ != nullptr) {
      iter->RegisterCleanup([block = owned_.release()] { delete block; });
    }
    block_ = nullptr;
  }

 private:
  void Reset() {
    if (handle_ != nullptr) cache_->Release(handle_);
    handle_ = nullptr;
  }
  Cache* cache_ = nullptr;
  Cache::Handle* handle_ = nullptr;
  std::unique_ptr<Block> owned_;
  const Block* block_ = nullptr;
};

}  // namespace

struct Table::Rep {
  TableOptions options;
  std::unique_ptr<RandomAccessFileReader> file;
  uint64_t file_size_bytes = 0;
  uint64_t cache_id = 0;
  Footer footer;
  std::unique_ptr<Block> index_block;
  BlockContents filter_contents;  // empty when the table has no filter
  std::unique_ptr<BloomFilterReader> filter;
  TableProperties properties;
  // The file's tail, while Open runs (empty otherwise).
  FilePrefetch tail;

  [[nodiscard]] Status ReadOwnedBlock(const BlockHandle& handle,
                                      std::unique_ptr<Block>* block) const;
  // Fetches the data block named by index_value, through the cache if any.
  [[nodiscard]] Status GetDataBlock(const ReadOptions& options, Slice index_value,
                                    BlockRef* ref) const;
  // Reads the metaindex and the filter and properties blocks it names.
  [[nodiscard]] Status ReadMetaBlocks();
};

Status Table::Rep::ReadOwnedBlock(const BlockHandle& handle, std::unique_ptr<Block>* block) const {
  BlockContents contents;
  Status s = ReadBlock(file.get(), file_size_bytes, handle, &contents, &tail);
  if (s.ok()) *block = std::make_unique<Block>(std::move(contents));
  if (s.IsCorruption() && options.runtime != nullptr) {
    SHALE_PROBE(options.runtime, "table.block_corruption_detected");
  }
  return s;
}

Status Table::Rep::GetDataBlock(const ReadOptions& options, Slice index_value,
                                BlockRef* ref) const {
  BlockHandle handle;
  Status s = handle.DecodeFrom(&index_value);
  if (!s.ok()) return s;
  Cache* cache = this->options.block_cache;
  StatsCounters* stats = this->options.stats;
  if (cache == nullptr) {
    std::unique_ptr<Block> block;
    s = ReadOwnedBlock(handle, &block);
    if (s.ok()) ref->SetOwned(std::move(block));
    return s;
  }
  char key_buf[kMaxCacheKeyBytes];
  const Slice key = MakeCacheKey(cache_id, handle.offset(), key_buf);
  if (Cache::Handle* h = cache->Lookup(key)) {
    SHALE_COUNT(stats, block_cache_hits, 1);
    ref->SetCached(cache, h);
    return Status::OK();
  }
  SHALE_COUNT(stats, block_cache_misses, 1);
  std::unique_ptr<Block> block;
  s = ReadOwnedBlock(handle, &block);
  if (!s.ok()) return s;
  if (!options.fill_cache || !block->owns_bytes()) {
    // A block left in the file's map is not cached: the page cache holds
    // it, and a cache entry could outlive the table that maps it.
    ref->SetOwned(std::move(block));
    return s;
  }
  const size_t charge = block->size() + sizeof(Block);
  ref->SetCached(cache, cache->Insert(key, block.release(), charge, &DeleteCachedBlock));
  SHALE_COUNT(stats, block_cache_inserts, 1);
  return s;
}

Status Table::Rep::ReadMetaBlocks() {
  Rep* rep = this;
  std::unique_ptr<Block> metaindex;
  Status s = ReadOwnedBlock(footer.metaindex_handle, &metaindex);
  if (!s.ok()) return s;
  BlockIter iter;
  metaindex->InitIterator(BytewiseComparator(), &iter);
  bool have_properties = false;
  for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
    BlockHandle handle;
    Slice value = iter.value();
    s = handle.DecodeFrom(&value);
    if (!s.ok()) return s;
    BlockContents contents;
    if (iter.key() == Slice(kFilterBlockName)) {
      s = ReadBlock(rep->file.get(), rep->file_size_bytes, handle, &rep->filter_contents,
                    &rep->tail);
      if (!s.ok()) return s;
      rep->filter = std::make_unique<BloomFilterReader>(rep->filter_contents.data);
    } else if (iter.key() == Slice(kPropertiesBlockName)) {
      s = ReadBlock(rep->file.get(), rep->file_size_bytes, handle, &contents, &rep->tail);
      if (s.ok()) s = DecodeTableProperties(contents.data, &rep->properties);
      if (!s.ok()) return s;
      have_properties = true;
    }
  }
  if (!iter.status().ok()) return iter.status();
  if (!have_properties) return Status::Corruption("table has no properties block");
  return Status::OK();
}

Table::Table(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Table::~Table() = default;

// Reads the last n bytes of file (file_size long) into *buf, or only the
// footer if n cannot be a tail. *tail names what was read.
static Status ReadTail(const RandomAccessFileReader& file, uint64_t file_size, uint64_t n,
                       std::unique_ptr<char[]>* buf, FilePrefetch* tail) {
  if (n < Footer::kEncodedLength || n > file_size || n > Table::kMaxTailPrefetchBytes) {
    n = Footer::kEncodedLength;
  }
  buf->reset(new char[n]);
  Slice got;
  Status s = file.Read(file_size - n, static_cast<size_t>(n), &got, buf->get());
  if (!s.ok()) return s;
  if (got.size() != n) return Status::Corruption("truncated table tail", file.path());
  *tail = FilePrefetch{file_size - n, got};
  return Status::OK();
}

Status Table::Open(const TableOptions& options, std::unique_ptr<RandomAccessFileReader> file,
                   uint64_t file_size, uint64_t tail_size_bytes, std::unique_ptr<Table>* table) {
  SHALE_CHECK(options.comparator != nullptr);
  table->reset();
  if (file_size < Footer::kEncodedLength) {
    return Status::Corruption("file too short to be a table", file->path());
  }
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  rep->file = std::move(file);
  rep->file_size_bytes = file_size;
  std::unique_ptr<char[]> tail_buf;
  Status s = ReadTail(*rep->file, file_size, tail_size_bytes, &tail_buf, &rep->tail);
  if (!s.ok()) return s;
  const Slice& tail = rep->tail.bytes;
  s = rep->footer.DecodeFrom(
      Slice(tail.data() + tail.size() - Footer::kEncodedLength, Footer::kEncodedLength));
  if (!s.ok()) return Status::Corruption(s.message(), rep->file->path());
  std::unique_ptr<Block> index;
  s = rep->ReadOwnedBlock(rep->footer.index_handle, &index);
  if (s.ok()) s = rep->ReadMetaBlocks();
  rep->tail = FilePrefetch{};
  if (!s.ok()) return s;
  rep->index_block = std::move(index);
  if (options.block_cache != nullptr) rep->cache_id = options.block_cache->NewId();
  table->reset(new Table(std::move(rep)));
  return Status::OK();
}

const TableProperties& Table::properties() const { return rep_->properties; }

Status Table::InternalGet(
    const ReadOptions& options, const Slice& internal_key,
    const std::function<void(const Slice& key, const Slice& value)>& found) const {
  const Rep& rep = *rep_;
  if (rep.filter != nullptr && !rep.filter->KeyMayMatch(ExtractUserKey(internal_key))) {
    SHALE_COUNT(rep.options.stats, bloom_useful, 1);
    return Status::OK();
  }
  BlockIter index_iter;
  rep.index_block->InitIterator(rep.options.comparator, &index_iter, kInternalKeyTrailerBytes);
  index_iter.Seek(internal_key);
  if (!index_iter.Valid()) return index_iter.status();
  BlockRef ref;
  Status s = rep.GetDataBlock(options, index_iter.value(), &ref);
  if (!s.ok()) return s;
  BlockIter data_iter;
  ref.block()->InitIterator(rep.options.comparator, &data_iter, kInternalKeyTrailerBytes);
  data_iter.Seek(internal_key);
  if (data_iter.Valid()) {
    // The iterator parses only keys of at least kInternalKeyTrailerBytes.
    const Comparator* user = rep.options.comparator->user_comparator();
    if (user->Compare(ExtractUserKey(data_iter.key()), ExtractUserKey(internal_key)) == 0) {
      found(data_iter.key(), data_iter.value());
    }
  }
  return data_iter.status();
}

Iterator* Table::NewIterator(const ReadOptions& options) const {
  const Rep* rep = rep_.get();
  Iterator* index_iter =
      rep->index_block->NewIterator(rep->options.comparator, kInternalKeyTrailerBytes);
  auto block_function = [rep](const ReadOptions& opts, const Slice& index_value) -> Iterator* {
    BlockRef ref;
    Status s = rep->GetDataBlock(opts, index_value, &ref);
    if (!s.ok()) return NewErrorIterator(s);
    Iterator* iter = ref.block()->NewIterator(rep->options.comparator, kInternalKeyTrailerBytes);
    ref.TransferTo(iter);
    return iter;
  };
  return NewTwoLevelIterator(index_iter, block_function, options);
}

uint64_t Table::ApproximateOffsetOf(const Slice& internal_key) const {
  BlockIter index_iter;
  rep_->index_block->InitIterator(rep_->options.comparator, &index_iter, kInternalKeyTrailerBytes);
  index_iter.Seek(internal_key);
  if (index_iter.Valid()) {
    BlockHandle handle;
    Slice value = index_iter.value();
    if (handle.DecodeFrom(&value).ok()) return handle.offset();
  }
  // Past the last key (or a damaged index): the end of the data blocks.
  return rep_->properties.data_size_bytes;
}

}  // namespace shale
