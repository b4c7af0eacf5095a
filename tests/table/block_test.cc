// Data/index block format: builder + iterator in both directions, and
// malformed contents reported as Corruption without out-of-bounds reads.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "table/block.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table/table_test_util.h"
#include "util/coding.h"
#include "util/random.h"

using namespace shale;
using namespace shale_test;

namespace {

std::unique_ptr<Block> MakeBlock(const std::string& bytes) {
  BlockContents contents;
  contents.heap.reset(new char[bytes.size() + 1]);
  std::memcpy(contents.heap.get(), bytes.data(), bytes.size());
  contents.data = Slice(contents.heap.get(), bytes.size());
  return std::make_unique<Block>(std::move(contents));
}

std::string BuildBlock(const std::map<std::string, std::string>& kv, int restart_interval) {
  BlockBuilder builder(restart_interval);
  for (const auto& [k, v] : kv) builder.Add(k, v);
  return builder.Finish().ToString();
}

std::map<std::string, std::string> SampleEntries(uint64_t seed, int n) {
  Random rnd(seed);
  std::map<std::string, std::string> kv;
  while (static_cast<int>(kv.size()) < n) {
    std::string k = "key" + std::to_string(rnd.Uniform(100000));
    kv[k] = std::string(rnd.Uniform(20), static_cast<char>('a' + rnd.Uniform(26)));
  }
  return kv;
}

}  // namespace

TEST_CASE("empty block iterates nothing", "[block]") {
  auto block = MakeBlock(BuildBlock({}, 16));
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  it->SeekToFirst();
  REQUIRE(!it->Valid());
  it->SeekToLast();
  REQUIRE(!it->Valid());
  it->Seek("a");
  REQUIRE(!it->Valid());
  it->SeekForPrev("z");
  REQUIRE(!it->Valid());
  REQUIRE(it->status().ok());
}

TEST_CASE("block round-trips at every restart interval", "[block]") {
  const auto kv = SampleEntries(1, 300);
  for (int interval : {1, 2, 3, 16, 1000}) {
    auto block = MakeBlock(BuildBlock(kv, interval));
    std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
    auto expected = kv.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
      REQUIRE(expected != kv.end());
      REQUIRE(it->key() == Slice(expected->first));
      REQUIRE(it->value() == Slice(expected->second));
    }
    REQUIRE(expected == kv.end());
    auto rexpected = kv.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++rexpected) {
      REQUIRE(rexpected != kv.rend());
      REQUIRE(it->key() == Slice(rexpected->first));
    }
    REQUIRE(rexpected == kv.rend());
    REQUIRE(it->status().ok());

    Random rnd(interval);
    for (int i = 0; i < 500; i++) {
      const std::string target = "key" + std::to_string(rnd.Uniform(100000));
      auto lb = kv.lower_bound(target);
      it->Seek(target);
      REQUIRE(it->Valid() == (lb != kv.end()));
      if (lb != kv.end()) REQUIRE(it->key() == Slice(lb->first));
      auto ub = kv.upper_bound(target);
      it->SeekForPrev(target);
      REQUIRE(it->Valid() == (ub != kv.begin()));
      if (ub != kv.begin()) REQUIRE(it->key() == Slice(std::prev(ub)->first));
    }
  }
}

TEST_CASE("keys longer than the inline key buffer", "[block]") {
  std::map<std::string, std::string> kv;
  for (int i = 0; i < 50; i++) kv[std::string(300, 'p') + std::to_string(1000 + i)] = "v";
  auto block = MakeBlock(BuildBlock(kv, 8));
  std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
  auto expected = kv.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
    REQUIRE(it->key() == Slice(expected->first));
  }
  REQUIRE(expected == kv.end());
  it->Seek(std::next(kv.begin(), 20)->first);
  REQUIRE(it->key() == Slice(std::next(kv.begin(), 20)->first));
  it->Prev();
  REQUIRE(it->key() == Slice(std::next(kv.begin(), 19)->first));
}

TEST_CASE("malformed restart array is Corruption", "[block]") {
  for (const std::string& bytes :
       {std::string(), std::string("\x01\x02", 2), std::string("\x00\x00\x00\x00", 4),
        std::string("\xff\xff\xff\x7f", 4)}) {
    auto block = MakeBlock(bytes);
    std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
    it->SeekToFirst();
    REQUIRE(!it->Valid());
    REQUIRE(it->status().IsCorruption());
  }
}

TEST_CASE("keys shorter than min_key_bytes are Corruption", "[block]") {
  // A table's blocks hold internal keys; a short one (possible only in
  // bytes that passed a checksum by chance or were forged) must never reach
  // the internal-key comparator, in a scan or at a restart point.
  const std::string bytes = BuildBlock({{"abc", "1"}, {"abcdefghij", "2"}}, 1);
  auto block = MakeBlock(bytes);
  std::unique_ptr<Iterator> relaxed(block->NewIterator(BytewiseComparator()));
  relaxed->SeekToFirst();
  REQUIRE(relaxed->Valid());
  std::unique_ptr<Iterator> strict(block->NewIterator(BytewiseComparator(), 8));
  strict->SeekToFirst();
  CHECK(!strict->Valid());
  CHECK(strict->status().IsCorruption());
  strict.reset(block->NewIterator(BytewiseComparator(), 8));
  strict->Seek("abc00000");
  CHECK(!strict->Valid());
  CHECK(strict->status().IsCorruption());
  strict.reset(block->NewIterator(BytewiseComparator(), 4));
  strict->SeekToLast();
  REQUIRE(strict->Valid());
  CHECK(strict->key() == Slice("abcdefghij"));
  strict->Prev();
  CHECK(strict->status().IsCorruption());
}

TEST_CASE("damaged block contents never read out of bounds", "[block]") {
  const std::string good = BuildBlock(SampleEntries(2, 60), 4);
  Random rnd(99);
  int corrupt_seen = 0;
  for (int trial = 0; trial < 3000; trial++) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rnd.Uniform(4));
    for (int f = 0; f < flips; f++) {
      bad[rnd.Uniform(bad.size())] ^= static_cast<char>(1 + rnd.Uniform(255));
    }
    if (rnd.OneIn(4)) bad.resize(rnd.Uniform(bad.size()));
    auto block = MakeBlock(bad);
    std::unique_ptr<Iterator> it(block->NewIterator(BytewiseComparator()));
    int steps = 0;
    for (it->SeekToFirst(); it->Valid() && steps < 1000; it->Next()) steps++;
    for (it->SeekToLast(); it->Valid() && steps < 2000; it->Prev()) steps++;
    it->Seek("key5");
    it->SeekForPrev("key5");
    if (!it->status().ok()) corrupt_seen++;
  }
  REQUIRE(corrupt_seen > 0);
}

TEST_CASE("footer round-trips and rejects damage", "[format]") {
  Footer footer;
  footer.metaindex_handle = BlockHandle(12345, 678);
  footer.index_handle = BlockHandle(uint64_t{1} << 40, 99);
  std::string bytes;
  footer.EncodeTo(&bytes);
  REQUIRE(bytes.size() == Footer::kEncodedLength);
  Footer decoded;
  REQUIRE(decoded.DecodeFrom(bytes).ok());
  REQUIRE(decoded.metaindex_handle.offset() == 12345);
  REQUIRE(decoded.metaindex_handle.size() == 678);
  REQUIRE(decoded.index_handle.offset() == uint64_t{1} << 40);
  REQUIRE(decoded.index_handle.size() == 99);
  for (size_t i = 0; i < bytes.size(); i++) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    REQUIRE(decoded.DecodeFrom(bad).IsCorruption());
  }
}

TEST_CASE("block checksum covers the block's offset", "[format]") {
  const std::string contents = "some block contents";
  REQUIRE(BlockChecksum(contents, kNoCompression, 0) !=
          BlockChecksum(contents, kNoCompression, 4096));
  REQUIRE(BlockChecksum(contents, kNoCompression, 7) == BlockChecksum(contents, kNoCompression, 7));
  REQUIRE(BlockChecksum(contents, kNoCompression, 7) != BlockChecksum(contents, 1, 7));

  // The same block bytes stored at another offset fail to read.
  std::string file(100, 'x');
  const uint64_t offset = 10;
  file.replace(offset, contents.size(), contents);
  file[offset + contents.size()] = static_cast<char>(kNoCompression);
  EncodeFixed32(&file[offset + contents.size() + 1],
                BlockChecksum(contents, kNoCompression, offset));
  RandomAccessFileReader reader(std::make_unique<MemRandomAccessFile>(file), "f");
  BlockContents read;
  REQUIRE(ReadBlock(&reader, file.size(), BlockHandle(offset, contents.size()), &read).ok());
  REQUIRE(read.data == Slice(contents));
  std::string moved = std::string(3, 'y') + file;
  RandomAccessFileReader moved_reader(std::make_unique<MemRandomAccessFile>(moved), "f");
  REQUIRE(ReadBlock(&moved_reader, moved.size(), BlockHandle(offset + 3, contents.size()), &read)
              .IsCorruption());
  REQUIRE(ReadBlock(&reader, file.size(), BlockHandle(offset, 200), &read).IsCorruption());
  REQUIRE(ReadBlock(&reader, file.size(), BlockHandle(UINT64_MAX, 5), &read).IsCorruption());
}

TEST_CASE("a block type that is no codec Shale has is unsupported compression", "[format]") {
  const std::string contents = "abc";
  std::string file = contents;
  file.push_back(2);  // RocksDB's zlib
  PutFixed32(&file, BlockChecksum(contents, 2, 0));
  RandomAccessFileReader reader(std::make_unique<MemRandomAccessFile>(file), "f");
  BlockContents read;
  const Status s = ReadBlock(&reader, file.size(), BlockHandle(0, contents.size()), &read);
  REQUIRE(s.IsCorruption());
  REQUIRE(s.ToString().find("unsupported compression") != std::string::npos);
}
