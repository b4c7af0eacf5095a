// ChunkTable (engine/flash/chunk_table.h) and FlashGeometry on their own:
// the chunk rules as pure state, without a device around them.
#include <catch2/catch.hpp>

#include <string>

#include "flash/chunk_table.h"

namespace shale_test {
namespace {

using shale::ChunkState;
using shale::FlashGeometry;
using shale::flash::ChunkTable;

// 1 unit x 4 chunks of 32 sectors; writes of 4; a cache of 8 sectors.
FlashGeometry Geometry() {
  FlashGeometry g;
  g.chunks_per_unit = 4;
  g.sectors_per_chunk = 32;
  g.ws_min = 4;
  g.ws_opt = 8;
  g.mw_cunits = 8;
  g.max_open_chunks = 2;
  g.max_resets = 5;
  return g;
}

TEST_CASE("flash geometry: Invalid names what is wrong", "[flash]") {
  CHECK(FlashGeometry().Invalid().empty());
  CHECK(Geometry().Invalid().empty());
  const auto invalid = [](void (*change)(FlashGeometry*)) {
    FlashGeometry g = Geometry();
    change(&g);
    return g.Invalid();
  };
  CHECK(invalid([](FlashGeometry* g) { g->groups = 0; }) == "groups is 0");
  CHECK(invalid([](FlashGeometry* g) { g->ws_opt = 6; }) == "ws_opt is not a multiple of ws_min");
  CHECK(invalid([](FlashGeometry* g) { g->sectors_per_chunk = 30; }) ==
        "sectors_per_chunk is not a multiple of ws_min");
  CHECK(invalid([](FlashGeometry* g) { g->mw_cunits = 6; }) ==
        "mw_cunits is not a multiple of ws_min");
  CHECK(invalid([](FlashGeometry* g) { g->mw_cunits = 32; }) ==
        "mw_cunits is not below sectors_per_chunk");
  CHECK(invalid([](FlashGeometry* g) { g->oob_bytes = 16; }) == "oob_bytes is below 32");
  CHECK_FALSE(invalid([](FlashGeometry* g) { g->sector_bytes = 1000; }).empty());
  CHECK_FALSE(invalid([](FlashGeometry* g) { g->sector_bytes = 256; }).empty());
}

TEST_CASE("flash geometry: chunk numbering and state names", "[flash]") {
  FlashGeometry g;
  g.groups = 2;
  g.parallel_units_per_group = 3;
  g.chunks_per_unit = 10;
  CHECK(g.chunks() == 60);
  CHECK(g.UnitOf(35) == 3);
  CHECK(g.GroupOf(35) == 1);
  CHECK(g.GroupOf(29) == 0);
  CHECK(std::string(shale::ChunkStateName(ChunkState::kFree)) == "FREE");
  CHECK(std::string(shale::ChunkStateName(ChunkState::kOpen)) == "OPEN");
  CHECK(std::string(shale::ChunkStateName(ChunkState::kClosed)) == "CLOSED");
  CHECK(std::string(shale::ChunkStateName(ChunkState::kOffline)) == "OFFLINE");
}

TEST_CASE("flash chunk table: the cache window follows the write pointer", "[flash]") {
  ChunkTable t(Geometry());
  REQUIRE(t.CheckWrite(0, 0, 4).empty());
  t.ApplyWrite(0, 4);
  CHECK(t.cache_start(0) == 0);
  t.ApplyWrite(0, 8);
  CHECK(t.cache_start(0) == 4);
  CHECK(t.CheckRead(0, 0, 4).empty());
  CHECK(t.CheckRead(0, 3, 2) ==
        "read of a sector in the device cache (sector 4, cache starts at 4)");
  // Reads that reach past the write pointer skip the cache rule only when
  // they start past it.
  CHECK(t.CheckRead(0, 12, 4).empty());
  CHECK(t.ReadsPastWritePointer(0, 12, 4));
  CHECK_FALSE(t.ReadsPastWritePointer(0, 0, 12));
  t.ApplyWrite(0, 20);
  CHECK(t.descriptor(0).state == ChunkState::kClosed);
  CHECK(t.cache_start(0) == 32);
  CHECK(t.CheckRead(0, 0, 32).empty());
}

TEST_CASE("flash chunk table: power loss restarts the cache and can free a chunk", "[flash]") {
  ChunkTable t(Geometry());
  t.ApplyWrite(0, 12);  // cache [4, 12)
  t.ApplyWrite(1, 4);   // cache [0, 4)
  CHECK(t.open_chunks() == 2);
  t.ApplyPowerLoss(0, 8);
  t.ApplyPowerLoss(1, 0);
  CHECK(t.descriptor(0).state == ChunkState::kOpen);
  CHECK(t.descriptor(0).write_pointer == 8);
  CHECK(t.descriptor(1).state == ChunkState::kFree);
  CHECK(t.open_chunks() == 1);
  CHECK(t.CheckRead(0, 0, 8).empty());  // nothing is cached after power-up
  t.ApplyWrite(0, 4);
  CHECK(t.cache_start(0) == 8);  // only what was written since power-up
}

TEST_CASE("flash chunk table: the open count follows every way out of OPEN", "[flash]") {
  ChunkTable t(Geometry());  // max_open_chunks 2
  t.ApplyWrite(0, 4);
  t.ApplyWrite(1, 4);
  CHECK(t.CheckWrite(2, 0, 4) == "too many open chunks (2 open, limit 2)");
  t.ApplyProgramFailure(0);
  CHECK(t.open_chunks() == 1);
  t.ApplyProgramFailure(2);  // failed while opening: never counted
  CHECK(t.open_chunks() == 1);
  CHECK(t.descriptor(2).state == ChunkState::kClosed);
  CHECK(t.ResetWillFail(2));
  t.ApplyReset(1, false);
  CHECK(t.open_chunks() == 0);
  t.ApplyWrite(3, 4);
  t.MarkFactoryBad(1);
  CHECK(t.open_chunks() == 1);
  CHECK(t.CheckReset(1) == "reset of an OFFLINE chunk");
  CHECK(t.CheckWrite(1, 0, 4) == "write to an OFFLINE chunk");
}

TEST_CASE("flash chunk table: wear reaches max_resets, then the reset fails", "[flash]") {
  ChunkTable t(Geometry());  // max_resets 5
  for (int i = 0; i < 5; ++i) {
    REQUIRE_FALSE(t.ResetWillFail(0));
    t.ApplyReset(0, false);
  }
  CHECK(t.descriptor(0).wear == 5);
  CHECK(t.ResetWillFail(0));
  t.ApplyReset(0, true);
  CHECK(t.descriptor(0).state == ChunkState::kOffline);
  CHECK(t.descriptor(0).wear == 6);
  CHECK(t.CheckReset(9) == "chunk 9 out of range (4 chunks)");
  CHECK(t.CheckWrite(9, 0, 4) == "chunk 9 out of range (4 chunks)");
  CHECK(t.CheckRead(9, 0, 4) == "chunk 9 out of range (4 chunks)");
}

}  // namespace
}  // namespace shale_test
