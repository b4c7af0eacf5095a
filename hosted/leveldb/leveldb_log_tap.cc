// LevelDbLogTap: see leveldb_log_tap.h.
#include "hosted/leveldb/leveldb_log_tap.h"

#include <algorithm>

#include "util/coding.h"

namespace shale::hosted {

namespace {

constexpr uint64_t kBlockBytes = 32768;
constexpr size_t kHeaderBytes = 7;
constexpr uint8_t kFull = 1, kFirst = 2, kLast = 4;
constexpr size_t kBatchHeaderBytes = 12;
constexpr uint8_t kTagDeletion = 0, kTagValue = 1;

// Offsets of each record in body (then body.size()); false if malformed.
bool RecordBoundaries(const std::string& body, uint32_t count, std::vector<size_t>* out) {
  Slice input(body);
  for (uint32_t i = 0; i < count; i++) {
    out->push_back(body.size() - input.size());
    if (input.empty()) return false;
    const auto tag = static_cast<uint8_t>(input[0]);
    input.remove_prefix(1);
    Slice key, value;
    if (!GetLengthPrefixedSlice(&input, &key)) return false;
    if (tag == kTagValue && !GetLengthPrefixedSlice(&input, &value)) return false;
    if (tag != kTagValue && tag != kTagDeletion) return false;
  }
  out->push_back(body.size());
  return input.empty();
}

}  // namespace

void LevelDbLogTap::Appended(const std::string& fname, uint64_t offset, const Slice& data) {
  Stream& stream = streams_[fname];
  if (stream.offset != offset) {  // a new writer (a reused log, or a file made anew)
    stream = Stream();
    stream.offset = offset;
  }
  Feed(&stream, data.data(), data.size());
}

void LevelDbLogTap::Feed(Stream* s, const char* bytes, size_t n) {
  while (n > 0) {
    if (s->payload_left == 0 && s->header.empty()) {
      const uint64_t block_left = kBlockBytes - s->offset % kBlockBytes;
      if (block_left < kHeaderBytes) {  // the block's zero tail
        const size_t skip = std::min<uint64_t>(block_left, n);
        s->offset += skip, bytes += skip, n -= skip;
        continue;
      }
    }
    if (s->payload_left == 0) {
      const size_t take = std::min(n, kHeaderBytes - s->header.size());
      s->header.append(bytes, take);
      s->offset += take, bytes += take, n -= take;
      if (s->header.size() < kHeaderBytes) continue;
      s->payload_left = static_cast<uint8_t>(s->header[4]) |
                        (static_cast<uint32_t>(static_cast<uint8_t>(s->header[5])) << 8);
      s->type = static_cast<uint8_t>(s->header[6]);
      s->header.clear();
      if (s->type == kFull || s->type == kFirst) s->record.clear();
      if (s->payload_left > 0) continue;
    } else {
      const size_t take = std::min<size_t>(n, s->payload_left);
      s->record.append(bytes, take);
      s->offset += take, bytes += take, n -= take;
      s->payload_left -= static_cast<uint32_t>(take);
      if (s->payload_left > 0) continue;
    }
    if (s->type == kFull || s->type == kLast) {
      Completed(s->record);
      s->record.clear();
    }
  }
}

namespace {

// The calling thread's write in flight (its id in the tap's pending_).
thread_local uint64_t current_write = 0;
thread_local bool writing = false;

}  // namespace

void LevelDbLogTap::BeginWrite(std::string records) {
  current_write = next_id_++;
  writing = true;
  pending_[current_write] = Pending{std::move(records), std::nullopt, false};
}

std::optional<uint64_t> LevelDbLogTap::EndWrite() {
  writing = false;
  const auto it = pending_.find(current_write);
  if (it == pending_.end()) return std::nullopt;
  // Unplaced but returned: a write with the same records that is still in
  // flight holds its place by a guess (LevelDB returns a group's members
  // only after their group is logged, so that place is this write's).
  if (!it->second.sequence) {
    for (auto& [id, write] : pending_) {
      if (id == it->first || !write.guessed || write.records != it->second.records) continue;
      std::swap(it->second.sequence, write.sequence);
      write.guessed = false;
      break;
    }
  }
  const std::optional<uint64_t> sequence = it->second.sequence;
  pending_.erase(it);
  return sequence;
}

void LevelDbLogTap::Completed(const std::string& record) {
  std::vector<size_t> boundaries;
  const auto leader = writing ? pending_.find(current_write) : pending_.end();
  if (record.size() < kBatchHeaderBytes || leader == pending_.end()) {
    untiled_++;
    return;
  }
  const uint64_t sequence = DecodeFixed64(record.data());
  const std::string body = record.substr(kBatchHeaderBytes);
  const std::string& mine = leader->second.records;
  if (!RecordBoundaries(body, DecodeFixed32(record.data() + 8), &boundaries) ||
      body.compare(0, mine.size(), mine) != 0 ||
      !std::binary_search(boundaries.begin(), boundaries.end(), mine.size())) {
    untiled_++;
    return;
  }
  // A leader already placed was placed by the earliest-begun guess, as a
  // member of an earlier group: that place belongs to another write with
  // the same records, still unplaced.
  if (leader->second.sequence) {
    for (auto& [id, write] : pending_) {
      if (write.sequence || write.records != mine) continue;
      write.sequence = leader->second.sequence;
      write.guessed = true;  // still only one of the identical writes
      break;
    }
  }
  leader->second.guessed = false;
  std::vector<std::pair<uint64_t, size_t>> placed{{leader->first, 0}};
  leader->second.sequence = sequence;  // Tile skips a write already placed
  if (!Tile(body, boundaries, mine.size(), &placed)) {
    leader->second.sequence.reset();
    untiled_++;
    return;
  }
  for (const auto& [id, index] : placed) pending_[id].sequence = sequence + index;
  for (const uint64_t id : guessed_) pending_[id].guessed = true;
  guessed_.clear();
}

bool LevelDbLogTap::Tile(const std::string& body, const std::vector<size_t>& boundaries,
                         size_t offset, std::vector<std::pair<uint64_t, size_t>>* placed) {
  if (offset == body.size()) return true;
  const size_t index = static_cast<size_t>(
      std::lower_bound(boundaries.begin(), boundaries.end(), offset) - boundaries.begin());
  std::vector<uint64_t> candidates;
  for (const auto& [id, write] : pending_) {
    const size_t end = offset + write.records.size();
    if (write.sequence || write.records.empty() || end > body.size() ||
        body.compare(offset, write.records.size(), write.records) != 0 ||
        !std::binary_search(boundaries.begin(), boundaries.end(), end)) {
      continue;
    }
    candidates.push_back(id);
  }
  if (candidates.size() > 1) ambiguous_++;
  for (const uint64_t id : candidates) {
    Pending& write = pending_[id];
    write.sequence = 0;  // taken while the rest is tiled
    placed->emplace_back(id, index);
    if (Tile(body, boundaries, offset + write.records.size(), placed)) {
      // Chosen among writes with the same records: a guess.
      const bool twin = std::any_of(candidates.begin(), candidates.end(), [&](uint64_t other) {
        return other != id && pending_[other].records == write.records;
      });
      if (twin) guessed_.push_back(id);
      return true;
    }
    placed->pop_back();
    write.sequence.reset();
  }
  return false;
}

}  // namespace shale::hosted
