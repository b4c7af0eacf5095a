// The block codecs (util/compression.h): every codec round-trips any block;
// a changed or cut stored block decodes to Corruption or to exactly its
// recorded length, never past it; names parse as RocksDB spells them.
#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "common/rc_check.h"
#include "util/coding.h"
#include "util/compression.h"

using namespace shale;

namespace {

constexpr CompressionType kCodecs[] = {kSnappyCompression, kLZ4Compression, kZSTD};

// Blocks the way tables make them: runs of a few repeated phrases with some
// noise, so every codec finds something to shrink.
std::string GenBlock() {
  const auto phrases = *rc::gen::container<std::vector<std::string>>(
      *rc::gen::inRange(1, 5), rc::gen::string<std::string>());
  const int pieces = *rc::gen::inRange(0, 200);
  std::string block;
  for (int i = 0; i < pieces; i++) {
    block += phrases[*rc::gen::inRange<size_t>(0, phrases.size())];
    if (*rc::gen::inRange(0, 8) == 0) block.push_back(*rc::gen::arbitrary<char>());
  }
  return block;
}

struct Decoded {
  Status status;
  std::string bytes;
};

Decoded Decode(CompressionType type, const std::string& framed) {
  std::unique_ptr<char[]> out;
  size_t n = 0;
  Decoded d;
  d.status = UncompressBlock(type, framed, &out, &n);
  if (d.status.ok()) d.bytes.assign(out.get(), n);
  return d;
}

}  // namespace

TEST_CASE("every codec round-trips any block", "[compression]") {
  shale_test::FixedSeedProp("round trip", [] {
    const std::string raw = GenBlock();
    for (CompressionType type : kCodecs) {
      BlockCompressor compressor(type);
      std::string framed;
      RC_ASSERT(compressor.Compress(raw, &framed));
      const Decoded d = Decode(type, framed);
      RC_ASSERT(d.status.ok());
      RC_ASSERT(d.bytes == raw);
    }
  });
}

TEST_CASE("a changed stored block decodes to Corruption or its recorded length", "[compression]") {
  shale_test::FixedSeedProp(
      "one byte changed",
      [] {
        const std::string raw = GenBlock();
        const CompressionType type = *rc::gen::element(kSnappyCompression, kLZ4Compression, kZSTD);
        BlockCompressor compressor(type);
        std::string framed;
        RC_ASSERT(compressor.Compress(raw, &framed));
        const size_t at = *rc::gen::inRange<size_t>(0, framed.size());
        const char delta = *rc::gen::suchThat<char>([](char c) { return c != 0; });
        framed[at] = static_cast<char>(framed[at] + delta);
        const Decoded d = Decode(type, framed);
        // The codecs carry no checksum of their own (the block trailer's
        // covers the stored bytes), so a changed literal may decode to other
        // bytes; but never to more than a block may hold, and never to
        // any length but the recorded one (every framing starts with it).
        RC_ASSERT(d.status.ok() || d.status.IsCorruption());
        if (d.status.ok()) {
          RC_ASSERT(d.bytes.size() <= kMaxUncompressedBlockBytes);
          if (at >= static_cast<size_t>(VarintLength(raw.size()))) {
            RC_ASSERT(d.bytes.size() == raw.size());
          }
        }
      },
      20240611, 300);
}

TEST_CASE("a cut stored block is Corruption", "[compression]") {
  shale_test::FixedSeedProp("truncated", [] {
    const std::string raw = GenBlock();
    RC_PRE(!raw.empty());
    const CompressionType type = *rc::gen::element(kSnappyCompression, kLZ4Compression, kZSTD);
    BlockCompressor compressor(type);
    std::string framed;
    RC_ASSERT(compressor.Compress(raw, &framed));
    const size_t keep = *rc::gen::inRange<size_t>(0, framed.size());
    const Decoded d = Decode(type, framed.substr(0, keep));
    RC_ASSERT(d.status.IsCorruption());
  });
}

TEST_CASE("a recorded length over the limit is Corruption before anything is allocated",
          "[compression]") {
  for (CompressionType type : {kLZ4Compression, kZSTD}) {
    std::string framed;
    PutVarint32(&framed, static_cast<uint32_t>(kMaxUncompressedBlockBytes + 1));
    framed += "payload";
    const Decoded d = Decode(type, framed);
    REQUIRE(d.status.IsCorruption());
    REQUIRE(d.status.ToString().find("over the limit") != std::string::npos);
  }
  // Snappy records its own length: 2^32-1 as a varint.
  const std::string snappy_huge = "\xff\xff\xff\xff\x0f";
  const Decoded d = Decode(kSnappyCompression, snappy_huge);
  REQUIRE(d.status.IsCorruption());
}

TEST_CASE("a zstd frame whose header disagrees with the recorded length is Corruption",
          "[compression]") {
  BlockCompressor compressor(kZSTD);
  std::string framed;
  REQUIRE(compressor.Compress(std::string(1000, 'z'), &framed));
  std::string relabelled;
  PutVarint32(&relabelled, 999);
  relabelled.append(framed, static_cast<size_t>(VarintLength(1000)), std::string::npos);
  REQUIRE(Decode(kZSTD, relabelled).status.IsCorruption());
}

TEST_CASE("an unknown block type is unsupported compression", "[compression]") {
  for (uint8_t type : {2, 3, 5, 6, 8, 0xff}) {
    std::unique_ptr<char[]> out;
    size_t n = 0;
    const Status s = UncompressBlock(type, "abc", &out, &n);
    REQUIRE(s.IsCorruption());
    REQUIRE(s.ToString().find("unsupported compression") != std::string::npos);
    REQUIRE_FALSE(IsBlockCompressionType(type));
  }
}

TEST_CASE("kNoCompression never compresses", "[compression]") {
  BlockCompressor none(kNoCompression);
  std::string framed = "left alone";
  REQUIRE_FALSE(none.Compress("aaaaaaaaaaaaaaaaaaaa", &framed));
}

TEST_CASE("a block is worth compressing only if it shrank by an eighth", "[compression]") {
  REQUIRE(GoodCompressionRatio(87, 100));  // 100 - 100/8 = 88
  REQUIRE_FALSE(GoodCompressionRatio(88, 100));
  REQUIRE_FALSE(GoodCompressionRatio(100, 100));
  REQUIRE_FALSE(GoodCompressionRatio(0, 0));
}

TEST_CASE("compression names parse as RocksDB and the short forms spell them", "[compression]") {
  struct Case {
    const char* name;
    CompressionType type;
  };
  for (const Case& c :
       {Case{"none", kNoCompression}, Case{"kNoCompression", kNoCompression},
        Case{"snappy", kSnappyCompression}, Case{"kSnappyCompression", kSnappyCompression},
        Case{"lz4", kLZ4Compression}, Case{"kLZ4Compression", kLZ4Compression}, Case{"zstd", kZSTD},
        Case{"kZSTD", kZSTD}, Case{"kDisableCompressionOption", kDisableCompressionOption}}) {
    CompressionType parsed = kNoCompression;
    REQUIRE(ParseCompressionType(c.name, &parsed));
    REQUIRE(parsed == c.type);
  }
  CompressionType parsed = kNoCompression;
  REQUIRE_FALSE(ParseCompressionType("zlib", &parsed));
  REQUIRE_FALSE(ParseCompressionType("", &parsed));
  REQUIRE(std::string(CompressionTypeName(kZSTD)) == "zstd");
  REQUIRE(std::string(CompressionTypeName(static_cast<CompressionType>(9))) == "unknown");
}
