// The file-list index of a level iterator, and the level iterator itself.
#include "version/level_iterator.h"

#include "table/two_level_iterator.h"
#include "util/check.h"
#include "util/coding.h"
#include "version/version.h"

namespace shale {

namespace {

// Iterates a level's file list: key() = largest key, value() = number|size.
class LevelFileNumIterator final : public Iterator {
 public:
  LevelFileNumIterator(const InternalKeyComparator* icmp, const std::vector<FileMetaData*>* files)
      : icmp_(icmp), files_(files), index_(files->size()) {}

  bool Valid() const override { return index_ < files_->size(); }
  void SeekToFirst() override { index_ = 0; }
  void SeekToLast() override { index_ = files_->empty() ? 0 : files_->size() - 1; }
  void Seek(const Slice& target) override { index_ = FindFile(*icmp_, *files_, target); }
  void SeekForPrev(const Slice& target) override {
    // The last file whose largest key is <= target.
    const size_t first_ge = FindFile(*icmp_, *files_, target);
    if (first_ge < files_->size() &&
        icmp_->Compare((*files_)[first_ge]->largest.Encode(), target) == 0) {
      index_ = first_ge;
    } else {
      index_ = first_ge == 0 ? files_->size() : first_ge - 1;
    }
  }
  void Next() override {
    SHALE_CHECK(Valid());
    index_++;
  }
  void Prev() override {
    SHALE_CHECK(Valid());
    index_ = index_ == 0 ? files_->size() : index_ - 1;
  }
  Slice key() const override {
    SHALE_CHECK(Valid());
    return (*files_)[index_]->largest.Encode();
  }
  Slice value() const override {
    SHALE_CHECK(Valid());
    EncodeFixed64(value_buf_, (*files_)[index_]->number);
    EncodeFixed64(value_buf_ + 8, (*files_)[index_]->file_size);
    EncodeFixed64(value_buf_ + 16, (*files_)[index_]->tail_size_bytes);
    return Slice(value_buf_, sizeof(value_buf_));
  }
  Status status() const override { return Status::OK(); }

 private:
  const InternalKeyComparator* const icmp_;
  const std::vector<FileMetaData*>* const files_;
  size_t index_;                // files_->size() when not valid
  mutable char value_buf_[24];  // number, file size, tail size
};

}  // namespace

Iterator* NewLevelIterator(const ReadOptions& options, TableCache* table_cache,
                           const InternalKeyComparator* icmp,
                           const std::vector<FileMetaData*>* files) {
  BlockFunction open_file = [table_cache](const ReadOptions& opts,
                                          const Slice& file_value) -> Iterator* {
    if (file_value.size() != 24) {
      return NewErrorIterator(Status::Corruption("level iterator: bad file value"));
    }
    FileMetaData file;
    file.number = DecodeFixed64(file_value.data());
    file.file_size = DecodeFixed64(file_value.data() + 8);
    file.tail_size_bytes = DecodeFixed64(file_value.data() + 16);
    return table_cache->NewIterator(opts, file);
  };
  return NewTwoLevelIterator(new LevelFileNumIterator(icmp, files), std::move(open_file), options);
}

}  // namespace shale
