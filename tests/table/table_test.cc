// Table round trips: builder + reader + two-level iterator + block cache,
// checked against a std::map model, and single-byte damage detected.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shale/cache.h"
#include "table/block.h"
#include "table/format.h"
#include "table/table_test_util.h"
#include "util/coding.h"
#include "util/random.h"

using namespace shale;
using namespace shale_test;

namespace {

struct Found {
  int calls = 0;
  std::string key, value;
};

Status Get(const Table& table, const Slice& ikey, Found* found, bool fill_cache = true) {
  *found = Found();
  ReadOptions ro;
  ro.fill_cache = fill_cache;
  return table.InternalGet(ro, ikey, [found](const Slice& k, const Slice& v) {
    found->calls++;
    found->key = k.ToString();
    found->value = v.ToString();
  });
}

TableOptions SmallBlocks(int bloom_bits = 10) {
  TableOptions o;
  o.comparator = TestComparator();
  o.block_size = 128;
  o.block_restart_interval = 4;
  o.bloom_bits_per_key = bloom_bits;
  return o;
}

Model Sequential(int n) {
  Model m;
  for (int i = 0; i < n; i++) {
    char buf[16];
    snprintf(buf, sizeof(buf), "key%06d", i);
    m[EncodedIKey(buf, 100 + i, i % 7 == 0 ? kTypeDeletion : kTypeValue)] =
        "value" + std::to_string(i);
  }
  return m;
}

}  // namespace

TEST_CASE("empty table opens and finds nothing", "[table]") {
  const TableOptions o = SmallBlocks();
  const std::string file = BuildTable(o, Model());
  std::unique_ptr<Table> t;
  REQUIRE(OpenTable(o, file, &t).ok());
  Found f;
  REQUIRE(Get(*t, EncodedIKey("a", 5), &f).ok());
  REQUIRE(f.calls == 0);
  std::unique_ptr<Iterator> it(t->NewIterator(ReadOptions()));
  it->SeekToFirst();
  REQUIRE(!it->Valid());
  it->SeekForPrev(EncodedIKey("z", 0));
  REQUIRE(!it->Valid());
  REQUIRE(it->status().ok());
  REQUIRE(t->properties().num_entries == 0);
}

TEST_CASE("properties are counted", "[table]") {
  const TableOptions o = SmallBlocks();
  const Model m = Sequential(500);
  const std::string file = BuildTable(o, m);
  std::unique_ptr<Table> t;
  REQUIRE(OpenTable(o, file, &t).ok());
  const TableProperties& p = t->properties();
  REQUIRE(p.num_entries == 500);
  REQUIRE(p.num_deletions == 72);  // i % 7 == 0 for i in [0, 500)
  REQUIRE(p.num_data_blocks > 50);
  REQUIRE(p.smallest_seqno == 100);
  REQUIRE(p.largest_seqno == 599);
  REQUIRE(p.raw_key_bytes == 500 * 17);
  REQUIRE(p.filter_size_bytes > 500 * 10 / 8);
  REQUIRE(p.index_size_bytes > 0);
  REQUIRE(p.data_size_bytes + p.filter_size_bytes + p.index_size_bytes < file.size());
  REQUIRE(t->ApproximateOffsetOf(EncodedIKey("key000000", kMaxSequenceNumber)) == 0);
  const uint64_t mid = t->ApproximateOffsetOf(EncodedIKey("key000250", kMaxSequenceNumber));
  REQUIRE(mid > 0);
  REQUIRE(mid < p.data_size_bytes);
  REQUIRE(t->ApproximateOffsetOf(EncodedIKey("zzz", 0)) == p.data_size_bytes);
}

TEST_CASE("builder rejects keys out of order", "[table]") {
  std::string contents;
  WritableFileWriter writer(std::make_unique<MemWritableFile>(&contents), "x");
  TableBuilder builder(SmallBlocks(), &writer);
  builder.Add(EncodedIKey("b", 1), "v");
  builder.Add(EncodedIKey("a", 1), "v");
  REQUIRE(builder.status().IsInvalidArgument());
  builder.Abandon();
}

TEST_CASE("block cache: misses, then hits, fill_cache=false inserts nothing", "[table]") {
  StatsCounters stats;
  auto cache = NewLRUCache(1 << 20, 2, TestRuntimeInstance());
  TableOptions o = SmallBlocks();
  o.block_cache = cache.get();
  o.stats = &stats;
  const Model m = Sequential(300);
  const std::string file = BuildTable(o, m);
  std::unique_ptr<Table> t;
  int reads = 0;
  REQUIRE(OpenTable(o, file, &t, &reads).ok());
  const int open_reads = reads;
  Found f;
  const std::string k = EncodedIKey("key000123", 1000);
  REQUIRE(Get(*t, k, &f, /*fill_cache=*/false).ok());
  REQUIRE(f.calls == 1);
  REQUIRE(f.key == EncodedIKey("key000123", 223));
  REQUIRE(stats.block_cache_misses == 1);
  REQUIRE(stats.block_cache_inserts == 0);
  REQUIRE(cache->GetUsage() == 0);
  REQUIRE(Get(*t, k, &f).ok());
  REQUIRE(stats.block_cache_misses == 2);
  REQUIRE(stats.block_cache_inserts == 1);
  REQUIRE(reads == open_reads + 2);
  REQUIRE(Get(*t, k, &f).ok());
  REQUIRE(f.value == "value123");
  REQUIRE(stats.block_cache_hits == 1);
  REQUIRE(reads == open_reads + 2);
  REQUIRE(cache->GetUsage() > 0);

  // Absent user keys are mostly excluded by the bloom filter.
  for (int i = 0; i < 1000; i++) {
    REQUIRE(Get(*t, EncodedIKey("absent" + std::to_string(i), 1000), &f).ok());
    REQUIRE(f.calls == 0);
  }
  REQUIRE(stats.bloom_useful > 950);
}

TEST_CASE("a damaged data block surfaces as Corruption in Get and iteration", "[table]") {
  const TableOptions o = SmallBlocks(0);
  const Model m = Sequential(200);
  std::string file = BuildTable(o, m);
  file[5] ^= 0x40;  // inside the first data block
  std::unique_ptr<Table> t;
  REQUIRE(OpenTable(o, file, &t).ok());
  Found f;
  REQUIRE(Get(*t, m.begin()->first, &f).IsCorruption());
  REQUIRE(f.calls == 0);
  std::unique_ptr<Iterator> it(t->NewIterator(ReadOptions()));
  it->SeekToFirst();
  REQUIRE(!it->Valid());
  REQUIRE(it->status().IsCorruption());
  std::unique_ptr<Iterator> back(t->NewIterator(ReadOptions()));
  int seen = 0;
  for (back->SeekToLast(); back->Valid(); back->Prev()) seen++;
  REQUIRE(back->status().IsCorruption());
  REQUIRE(seen > 0);
  REQUIRE(seen < 200);
}

TEST_CASE("open rejects short files and foreign bytes", "[table]") {
  const TableOptions o = SmallBlocks();
  std::unique_ptr<Table> t;
  REQUIRE(OpenTable(o, "tiny", &t).IsCorruption());
  REQUIRE(OpenTable(o, std::string(4096, 'z'), &t).IsCorruption());
  REQUIRE(t == nullptr);
}

namespace {

// The trailer type byte of every data block of an SST, in file order, found
// through its footer and index block (decompressed by ReadBlock).
std::vector<uint8_t> DataBlockTypes(const std::string& file) {
  Footer footer;
  REQUIRE(footer
              .DecodeFrom(
                  Slice(file.data() + file.size() - Footer::kEncodedLength, Footer::kEncodedLength))
              .ok());
  RandomAccessFileReader reader(std::make_unique<MemRandomAccessFile>(file), "f");
  BlockContents contents;
  REQUIRE(ReadBlock(&reader, file.size(), footer.index_handle, &contents).ok());
  Block index(std::move(contents));
  std::unique_ptr<Iterator> it(index.NewIterator(TestComparator()));
  std::vector<uint8_t> types;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    Slice value = it->value();
    BlockHandle handle;
    REQUIRE(handle.DecodeFrom(&value).ok());
    types.push_back(static_cast<uint8_t>(file[handle.offset() + handle.size()]));
  }
  REQUIRE(it->status().ok());
  return types;
}

// Internal keys with values of `value_bytes`: runs of one letter
// (compressible) or bytes from rnd (not).
Model ValuesOf(int n, size_t value_bytes, bool compressible) {
  Random rnd(301);
  Model m;
  for (int i = 0; i < n; i++) {
    char key[16];
    snprintf(key, sizeof(key), "key%06d", i);
    std::string value(value_bytes, static_cast<char>('a' + i % 26));
    if (!compressible) {
      for (char& c : value) c = static_cast<char>(rnd.Uniform(256));
    }
    m[EncodedIKey(key, 100 + i)] = value;
  }
  return m;
}

void CheckReadsBack(const TableOptions& o, const std::string& file, const Model& m) {
  std::unique_ptr<Table> t;
  REQUIRE(OpenTable(o, file, &t).ok());
  REQUIRE(t->properties().compression == o.compression);
  for (const auto& [k, v] : m) {
    Found f;
    REQUIRE(Get(*t, k, &f).ok());
    REQUIRE(f.calls == 1);
    REQUIRE(f.value == v);
  }
  std::unique_ptr<Iterator> it(t->NewIterator(ReadOptions()));
  auto expected = m.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++expected) {
    REQUIRE(expected != m.end());
    REQUIRE(it->value() == Slice(expected->second));
  }
  REQUIRE(it->status().ok());
  REQUIRE(expected == m.end());
}

}  // namespace

TEST_CASE("each codec stores compressible data blocks compressed and reads them back",
          "[table][compression]") {
  const Model m = ValuesOf(300, 100, /*compressible=*/true);
  for (CompressionType type : {kSnappyCompression, kLZ4Compression, kZSTD}) {
    TableOptions o = SmallBlocks();
    o.block_size = 1024;
    o.compression = type;
    const std::string file = BuildTable(o, m);
    const std::vector<uint8_t> types = DataBlockTypes(file);
    REQUIRE(types.size() > 10);
    for (uint8_t t : types) REQUIRE(t == type);
    std::unique_ptr<Table> t;
    REQUIRE(OpenTable(o, file, &t).ok());
    const TableProperties& p = t->properties();
    REQUIRE(p.data_size_bytes * 3 < p.raw_key_bytes + p.raw_value_bytes);
    CheckReadsBack(o, file, m);
  }
}

TEST_CASE("a block that does not shrink by an eighth is stored raw", "[table][compression]") {
  const Model m = ValuesOf(200, 100, /*compressible=*/false);
  for (CompressionType type : {kSnappyCompression, kLZ4Compression, kZSTD}) {
    TableOptions o = SmallBlocks();
    o.block_size = 1024;
    o.compression = type;
    const std::string file = BuildTable(o, m);
    for (uint8_t t : DataBlockTypes(file)) REQUIRE(t == kNoCompression);
    CheckReadsBack(o, file, m);
  }
}

TEST_CASE("kNoCompression writes every block raw and records no codec", "[table][compression]") {
  const Model m = ValuesOf(200, 100, /*compressible=*/true);
  TableOptions o = SmallBlocks();
  o.compression = kNoCompression;
  const std::string file = BuildTable(o, m);
  for (uint8_t t : DataBlockTypes(file)) REQUIRE(t == kNoCompression);
  CheckReadsBack(o, file, m);
}

TEST_CASE("a version 1 properties block still reads, with no codec", "[table][compression]") {
  std::string v1;
  PutVarint32(&v1, 1);
  for (int i = 0; i < 10; i++) PutVarint64(&v1, static_cast<uint64_t>(i));
  TableProperties props;
  props.compression = kZSTD;
  REQUIRE(DecodeTableProperties(v1, &props).ok());
  REQUIRE(props.compression == kNoCompression);
  REQUIRE(props.largest_seqno == 9);
  std::string v2 = v1;
  v2[0] = 2;
  PutVarint64(&v2, 3);  // not a codec
  REQUIRE(DecodeTableProperties(v2, &props).IsCorruption());
}
