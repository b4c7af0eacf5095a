// Fuzzes the SST checksums: the input describes a table (entries and table
// options, compression included) and damage to it (byte changes, or a cut). The target builds
// the table with TableBuilder, damages it, and reads it back.
//
// Every byte of an SST is covered by a checksum or checked exactly (the
// footer's magic), so damage must surface as Corruption, never as data:
//   * Open either fails with Corruption or succeeds;
//   * every entry read, in either direction, is one that was written, and
//     an OK read returns exactly the entries written;
//   * a lookup of a written key returns that entry or Corruption, never
//     "not found" and never another value.
// Undamaged (no change, or every change a no-op), everything must be OK.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "db/dbformat.h"
#include "fuzz_check.h"
#include "table_check.h"

namespace {

using shale_fuzz::TableEntries;

// Up to 200 entries with short user keys, sorted by internal key.
TableEntries DrawEntries(FuzzedDataProvider* in) {
  std::map<std::string, std::pair<uint64_t, std::string>> by_user_key;
  const size_t count = in->ConsumeIntegralInRange<size_t>(1, 200);
  for (size_t i = 0; i < count && in->remaining_bytes() > 0; i++) {
    std::string user_key = in->ConsumeRandomLengthString(24);
    const uint64_t seq = in->ConsumeIntegralInRange<uint64_t>(1, 1'000'000);
    by_user_key[user_key] = {seq, in->ConsumeRandomLengthString(300)};
  }
  TableEntries entries;
  for (const auto& [user_key, seq_value] : by_user_key) {
    std::string key;
    shale::AppendInternalKey(
        &key, shale::ParsedInternalKey(user_key, seq_value.first, shale::kTypeValue));
    entries.emplace_back(key, seq_value.second);
  }
  return entries;
}

// Applies up to four byte changes, or cuts the file. Returns whether the
// bytes changed.
bool Damage(FuzzedDataProvider* in, std::string* contents) {
  const std::string before = *contents;
  if (in->ConsumeBool()) {
    contents->resize(in->ConsumeIntegralInRange<size_t>(0, contents->size()));
  } else {
    const int changes = in->ConsumeIntegralInRange<int>(0, 4);
    for (int i = 0; i < changes; i++) {
      const size_t at = in->ConsumeIntegralInRange<size_t>(0, contents->size() - 1);
      (*contents)[at] = static_cast<char>((*contents)[at] ^ in->ConsumeIntegral<uint8_t>());
    }
  }
  return *contents != before;
}

bool AllWritten(const TableEntries& read, const std::map<std::string, std::string>& written) {
  for (const auto& [key, value] : read) {
    const auto it = written.find(key);
    if (it == written.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  shale::TableOptions options = shale_fuzz::FuzzTableOptions();
  options.block_size = in.ConsumeIntegralInRange<size_t>(32, 4096);
  options.block_restart_interval = in.ConsumeIntegralInRange<int>(1, 16);
  options.bloom_bits_per_key = in.ConsumeIntegralInRange<int>(0, 12);
  constexpr shale::CompressionType kCodecs[] = {shale::kNoCompression, shale::kSnappyCompression,
                                                shale::kLZ4Compression, shale::kZSTD};
  options.compression = kCodecs[in.ConsumeIntegralInRange<size_t>(0, 3)];
  const std::string damage_input = in.ConsumeBytesAsString(in.ConsumeIntegralInRange(0, 16));
  const TableEntries entries = DrawEntries(&in);
  const std::map<std::string, std::string> written(entries.begin(), entries.end());

  std::string contents = shale_fuzz::BuildTableBytes(options, entries);
  FuzzedDataProvider damage_in(reinterpret_cast<const uint8_t*>(damage_input.data()),
                               damage_input.size());
  const bool damaged = Damage(&damage_in, &contents);

  std::unique_ptr<shale::Table> table;
  const shale::Status s = shale_fuzz::OpenTableBytes(options, contents, &table);
  FUZZ_CHECK_MSG(s.ok() || (damaged && s.IsCorruption()), s.ToString());
  if (!s.ok()) return 0;
  shale::Status status;
  for (const bool forward : {true, false}) {
    const TableEntries read = forward ? shale_fuzz::ReadTableForward(*table, &status)
                                      : shale_fuzz::ReadTableBackward(*table, &status);
    FUZZ_CHECK_MSG(status.ok() || (damaged && status.IsCorruption()), status.ToString());
    FUZZ_CHECK(AllWritten(read, written));
    FUZZ_CHECK(!status.ok() || read == entries);
  }
  for (const auto& entry : entries) {
    bool found = false;
    std::pair<std::string, std::string> got;
    status = shale_fuzz::GetEntry(*table, entry.first, &found, &got);
    FUZZ_CHECK_MSG(status.ok() || (damaged && status.IsCorruption()), status.ToString());
    FUZZ_CHECK(!status.ok() || (found && got == entry));
  }
  return 0;
}
