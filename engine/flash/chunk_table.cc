// ChunkTable: the open-channel chunk rules as pure state (chunk_table.h).
#include "flash/chunk_table.h"
#include "util/check.h"

#include <algorithm>

namespace shale::flash {

namespace {

std::string Num(uint64_t n) { return std::to_string(n); }

// "a CLOSED chunk", "an OFFLINE chunk".
std::string StateArticle(ChunkState state) {
  return std::string(state == ChunkState::kOffline || state == ChunkState::kOpen ? "an " : "a ") +
         ChunkStateName(state) + " chunk";
}

}  // namespace

ChunkTable::ChunkTable(const FlashGeometry& geometry)
    : geometry_(geometry), chunks_(geometry.chunks()) {
  SHALE_CHECK(geometry.Invalid().empty());
}

std::vector<ChunkDescriptor> ChunkTable::Report() const {
  std::vector<ChunkDescriptor> report;
  report.reserve(chunks_.size());
  for (const Chunk& c : chunks_) report.push_back(c.d);
  return report;
}

void ChunkTable::MarkFactoryBad(uint32_t chunk) {
  SHALE_CHECK(chunk < chunks_.size());
  Chunk& c = chunks_[chunk];
  if (c.d.state == ChunkState::kOpen) --open_chunks_;
  c.d.state = ChunkState::kOffline;
  c.d.write_pointer = 0;
  c.cache_start = 0;
}

void ChunkTable::Restore(uint32_t chunk, const ChunkDescriptor& d, bool grown_bad) {
  SHALE_CHECK(chunk < chunks_.size());
  Chunk& c = chunks_[chunk];
  if (c.d.state == ChunkState::kOpen) --open_chunks_;
  c.d = d;
  c.cache_start = d.write_pointer;
  c.grown_bad = grown_bad;
  if (d.state == ChunkState::kOpen) ++open_chunks_;
}

std::string ChunkTable::InRange(uint32_t chunk) const {
  if (chunk < chunks_.size()) return "";
  return "chunk " + Num(chunk) + " out of range (" + Num(chunks_.size()) + " chunks)";
}

// ---- writes

std::string ChunkTable::CheckWrite(uint32_t chunk, uint32_t sector, uint32_t count) const {
  if (std::string range = InRange(chunk); !range.empty()) return range;
  const ChunkDescriptor& d = chunks_[chunk].d;
  if (d.state == ChunkState::kClosed || d.state == ChunkState::kOffline) {
    return "write to " + StateArticle(d.state);
  }
  if (count == 0) return "write of 0 sectors";
  if (count % geometry_.ws_min != 0) {
    return "write of " + Num(count) + " sectors is not a multiple of ws_min (" +
           Num(geometry_.ws_min) + ")";
  }
  if (sector != d.write_pointer) {
    return "write not at the write pointer (sector " + Num(sector) + ", write pointer " +
           Num(d.write_pointer) + ")";
  }
  if (uint64_t{sector} + count > geometry_.sectors_per_chunk) {
    return "write past the end of the chunk (" + Num(count) + " sectors at sector " + Num(sector) +
           ", " + Num(geometry_.sectors_per_chunk) + " sectors a chunk)";
  }
  if (d.state == ChunkState::kFree && open_chunks_ >= geometry_.max_open_chunks) {
    return "too many open chunks (" + Num(open_chunks_) + " open, limit " +
           Num(geometry_.max_open_chunks) + ")";
  }
  return "";
}

void ChunkTable::ApplyWrite(uint32_t chunk, uint32_t count) {
  Chunk& c = chunks_[chunk];
  SHALE_CHECK(c.d.state == ChunkState::kFree || c.d.state == ChunkState::kOpen);
  if (c.d.state == ChunkState::kFree) {
    c.d.state = ChunkState::kOpen;
    ++open_chunks_;
  }
  c.d.write_pointer += count;
  if (c.d.write_pointer == geometry_.sectors_per_chunk) {
    c.d.state = ChunkState::kClosed;
    c.cache_start = c.d.write_pointer;
    --open_chunks_;
    return;
  }
  const uint32_t behind = c.d.write_pointer - std::min(c.d.write_pointer, geometry_.mw_cunits);
  c.cache_start = std::max(c.cache_start, behind);
}

void ChunkTable::ApplyProgramFailure(uint32_t chunk) {
  Chunk& c = chunks_[chunk];
  SHALE_CHECK(c.d.state == ChunkState::kFree || c.d.state == ChunkState::kOpen);
  if (c.d.state == ChunkState::kOpen) --open_chunks_;
  c.d.state = ChunkState::kClosed;
  c.cache_start = c.d.write_pointer;
  c.grown_bad = true;
}

// ---- reads

std::string ChunkTable::CheckRead(uint32_t chunk, uint32_t sector, uint32_t count) const {
  if (std::string range = InRange(chunk); !range.empty()) return range;
  if (uint64_t{sector} + count > geometry_.sectors_per_chunk) {
    return "read past the end of the chunk (" + Num(count) + " sectors at sector " + Num(sector) +
           ", " + Num(geometry_.sectors_per_chunk) + " sectors a chunk)";
  }
  const Chunk& c = chunks_[chunk];
  if (c.d.state != ChunkState::kOpen || count == 0) return "";
  const uint32_t first_cached = std::max(sector, c.cache_start);
  if (first_cached < c.d.write_pointer && first_cached < sector + count) {
    return "read of a sector in the device cache (sector " + Num(first_cached) +
           ", cache starts at " + Num(c.cache_start) + ")";
  }
  return "";
}

bool ChunkTable::ReadsPastWritePointer(uint32_t chunk, uint32_t sector, uint32_t count) const {
  return uint64_t{sector} + count > chunks_[chunk].d.write_pointer;
}

// ---- resets

std::string ChunkTable::CheckReset(uint32_t chunk) const {
  if (std::string range = InRange(chunk); !range.empty()) return range;
  if (chunks_[chunk].d.state == ChunkState::kOffline) return "reset of an OFFLINE chunk";
  return "";
}

bool ChunkTable::ResetWillFail(uint32_t chunk) const {
  const Chunk& c = chunks_[chunk];
  return uint64_t{c.d.wear} + 1 > geometry_.max_resets || c.grown_bad;
}

void ChunkTable::ApplyReset(uint32_t chunk, bool failed) {
  Chunk& c = chunks_[chunk];
  SHALE_CHECK(c.d.state != ChunkState::kOffline);
  if (c.d.state == ChunkState::kOpen) --open_chunks_;
  c.d.state = failed ? ChunkState::kOffline : ChunkState::kFree;
  c.d.write_pointer = 0;
  c.d.wear += 1;
  c.cache_start = 0;
  c.grown_bad = c.grown_bad && failed;
}

void ChunkTable::ApplyLoss(uint32_t chunk) {
  Chunk& c = chunks_[chunk];
  SHALE_CHECK(c.d.state == ChunkState::kClosed);
  c.d.state = ChunkState::kOffline;
  c.d.write_pointer = 0;
  c.cache_start = 0;
}

// ---- power loss

void ChunkTable::ApplyPowerLoss(uint32_t chunk, uint32_t write_pointer) {
  Chunk& c = chunks_[chunk];
  SHALE_CHECK(write_pointer >= c.cache_start && write_pointer <= c.d.write_pointer);
  c.d.write_pointer = write_pointer;
  c.cache_start = write_pointer;
  if (c.d.state == ChunkState::kOpen && write_pointer == 0) {
    c.d.state = ChunkState::kFree;
    --open_chunks_;
  }
}

}  // namespace shale::flash
