#include "block_check.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "fuzz_check.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table_check.h"

namespace shale_fuzz {

namespace {

using Entries = TableEntries;

std::unique_ptr<shale::Block> MakeBlock(const char* p, size_t n) {
  shale::BlockContents contents;
  contents.heap = std::make_unique<char[]>(n == 0 ? 1 : n);
  if (n > 0) std::memcpy(contents.heap.get(), p, n);
  contents.data = shale::Slice(contents.heap.get(), n);
  return std::make_unique<shale::Block>(std::move(contents));
}

// Decodes every value as a block handle (an index block's values).
void DecodeHandles(const Entries& entries) {
  for (const auto& [key, value] : entries) {
    shale::Slice input(value);
    shale::BlockHandle handle;
    const shale::Status s = handle.DecodeFrom(&input);
    FUZZ_CHECK(s.ok() || s.IsCorruption());
  }
}

void CheckRebuilt(const Entries& entries, int restart_interval) {
  shale::BlockBuilder builder(restart_interval);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  const std::string encoded = builder.Finish().ToString();
  const auto block = MakeBlock(encoded.data(), encoded.size());
  std::unique_ptr<shale::Iterator> it(
      block->NewIterator(FuzzComparator(), shale::kInternalKeyTrailerBytes));
  shale::Status s;
  FUZZ_CHECK(ReadForward(it.get(), &s) == entries);
  FUZZ_CHECK(s.ok());
  FUZZ_CHECK(ReadBackward(it.get(), &s) == entries);
  FUZZ_CHECK(s.ok());
  for (const auto& [key, value] : entries) {
    it->Seek(key);
    FUZZ_CHECK(it->Valid() && it->key() == shale::Slice(key) && it->value() == shale::Slice(value));
  }
}

}  // namespace

void CheckBlock(const uint8_t* data, size_t size, BlockKind kind) {
  const auto block = MakeBlock(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<shale::Iterator> it(
      block->NewIterator(FuzzComparator(), shale::kInternalKeyTrailerBytes));
  shale::Status forward_status;
  shale::Status backward_status;
  const Entries forward = ReadForward(it.get(), &forward_status);
  const Entries backward = ReadBackward(it.get(), &backward_status);
  FUZZ_CHECK(forward_status.ok() || forward_status.IsCorruption());
  FUZZ_CHECK(backward_status.ok() || backward_status.IsCorruption());
  if (kind == BlockKind::kIndex) DecodeHandles(forward);
  if (!forward_status.ok() || forward.empty() || forward.size() == kMaxTableEntries) return;
  if (!StrictlyIncreasingInternalKeys(forward)) return;
  // Seeking compares restart keys, which arbitrary bytes need not order: on
  // the input it must only stay in bounds. The rebuilt block pins results.
  for (const auto& [key, value] : forward) it->Seek(key);
  CheckRebuilt(forward, 1);
  CheckRebuilt(forward, 16);
}

}  // namespace shale_fuzz
