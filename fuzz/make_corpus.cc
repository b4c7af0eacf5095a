// fuzz_make_corpus OUT_DIR: writes the seed corpora of the decoder fuzz
// targets from files the engine itself writes.
//
// It opens a DB in OUT_DIR/db (real POSIX files), writes a few dozen keys
// (puts, overwrites, deletes, a multi-record batch), flushes twice and
// compacts once, writes a few more keys to leave a live WAL, and closes it.
// Then it files each on-disk thing under OUT_DIR/<target>/:
//   wal_reader: the WAL; manifest_reader: the MANIFEST; current_file:
//   CURRENT; write_batch: each WAL record; version_edit: each MANIFEST
//   record; sst_table: each SST; sst_footer, sst_index_block,
//   sst_data_block, sst_filter_block, sst_properties: the parts of the
//   first SST (decompressed); block_codec: its first data block under each
//   codec.
// Exit status 0 on success; one line on stderr and 2 otherwise.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/mem_file.h"
#include "shale/db.h"
#include "shale/env.h"
#include "shale/options.h"
#include "shale/write_batch.h"
#include "table/block.h"
#include "table/format.h"
#include "table/table.h"
#include "table_check.h"
#include "util/compression.h"
#include "util/file_reader.h"
#include "version/filename.h"
#include "wal/log_reader.h"

namespace fs = std::filesystem;

namespace {

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

bool Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_make_corpus: %s\n", what.c_str());
  return false;
}

bool WriteDb(const std::string& path) {
  shale::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 4096;
  options.block_size = 256;
  std::unique_ptr<shale::DB> db;
  shale::Status s = shale::DB::Open(options, path, &db);
  if (!s.ok()) return Fail(s.ToString());
  const shale::WriteOptions write;
  for (int round = 0; round < 3 && s.ok(); round++) {
    for (int i = 0; i < 40 && s.ok(); i++) {
      const std::string key = "key" + std::to_string(i * 7 % 40);
      s = db->Put(write, key, "value-" + std::to_string(round) + "-" + key);
      if (s.ok() && i % 9 == 0) s = db->Delete(write, "key" + std::to_string(i + 1));
    }
    shale::WriteBatch batch;
    batch.Put("batch-a", "1");
    batch.Delete("batch-b");
    batch.Put("batch-c", std::string(300, 'c'));
    if (s.ok()) s = db->Write(write, &batch);
    if (s.ok() && round < 2) s = db->Flush(shale::FlushOptions());
    if (s.ok() && round == 1) s = db->CompactRange(shale::CompactRangeOptions(), nullptr, nullptr);
  }
  if (!s.ok()) return Fail(s.ToString());
  s = db->Close();
  return s.ok() || Fail(s.ToString());
}

std::vector<std::string> LogRecords(const std::string& contents) {
  shale::log::Reader reader(std::make_unique<shale_test::MemSequentialFile>(contents), 1);
  std::vector<std::string> records;
  shale::Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch) == shale::log::ReadResult::kRecord) {
    records.push_back(record.ToString());
  }
  return records;
}

// Files up to 8 records, spread evenly and including the last.
void FileRecords(const fs::path& dir, const std::string& prefix,
                 const std::vector<std::string>& records) {
  constexpr size_t kMaxFiled = 8;
  const size_t n = records.size();
  for (size_t k = 0; k < std::min(n, kMaxFiled); k++) {
    const size_t i = n <= kMaxFiled ? k : (n - 1) * k / (kMaxFiled - 1);
    WriteBytes(dir, prefix + "-" + std::to_string(i), records[i]);
  }
}

// The bytes of the block at handle (its contents, trailer excluded).
// The contents of the block at handle, decompressed; "" if it does not read.
std::string BlockAt(const std::string& sst, const shale::BlockHandle& handle) {
  shale::RandomAccessFileReader reader(std::make_unique<shale_test::MemRandomAccessFile>(sst),
                                       "sst");
  shale::BlockContents contents;
  if (!shale::ReadBlock(&reader, sst.size(), handle, &contents).ok()) return "";
  return contents.data.ToString();
}

// block_codec: a data block under each codec, stored (first byte: the
// codec) and raw (first byte: 0x80 | the codec), as block_codec_fuzzer.cc
// reads them.
void FileCodecCorpus(const fs::path& dir, const std::string& raw) {
  constexpr shale::CompressionType kCodecs[] = {shale::kSnappyCompression, shale::kLZ4Compression,
                                                shale::kZSTD};
  for (char i = 0; i < 3; i++) {
    shale::BlockCompressor compressor(kCodecs[static_cast<int>(i)]);
    std::string stored;
    if (!compressor.Compress(raw, &stored)) continue;
    const std::string name = shale::CompressionTypeName(kCodecs[static_cast<int>(i)]);
    WriteBytes(dir, "stored-" + name, std::string(1, i) + stored);
    WriteBytes(dir, "raw-" + name, std::string(1, static_cast<char>(0x80 | i)) + raw);
  }
}

// The entries of a block's contents (keys compared bytewise).
shale_fuzz::TableEntries BlockEntries(const std::string& contents) {
  shale::BlockContents owned;
  owned.heap = std::make_unique<char[]>(contents.size() + 1);
  std::memcpy(owned.heap.get(), contents.data(), contents.size());
  owned.data = shale::Slice(owned.heap.get(), contents.size());
  const shale::Block block(std::move(owned));
  std::unique_ptr<shale::Iterator> it(block.NewIterator(shale::BytewiseComparator()));
  shale::Status status;
  return shale_fuzz::ReadForward(it.get(), &status);
}

// The block a handle-valued entry points at.
std::string BlockOf(const std::string& sst, const std::string& encoded_handle) {
  shale::Slice input(encoded_handle);
  shale::BlockHandle handle;
  if (!handle.DecodeFrom(&input).ok()) return "";
  return BlockAt(sst, handle);
}

bool FileTableParts(const fs::path& out, const std::string& sst) {
  shale::Footer footer;
  const size_t footer_at = sst.size() - shale::Footer::kEncodedLength;
  if (!footer.DecodeFrom(shale::Slice(sst.data() + footer_at, shale::Footer::kEncodedLength))
           .ok()) {
    return Fail("first SST has no valid footer");
  }
  WriteBytes(out / "sst_footer", "footer", sst.substr(footer_at));
  const std::string index = BlockAt(sst, footer.index_handle);
  WriteBytes(out / "sst_index_block", "index", index);
  const shale_fuzz::TableEntries index_entries = BlockEntries(index);
  if (index_entries.empty()) return Fail("first SST has an empty index");
  const std::string data = BlockOf(sst, index_entries.front().second);
  WriteBytes(out / "sst_data_block", "data", data);
  FileCodecCorpus(out / "block_codec", data);
  for (const auto& [name, handle] : BlockEntries(BlockAt(sst, footer.metaindex_handle))) {
    if (name == shale::kFilterBlockName) {
      WriteBytes(out / "sst_filter_block", "filter", BlockOf(sst, handle));
    } else if (name == shale::kPropertiesBlockName) {
      WriteBytes(out / "sst_properties", "properties", BlockOf(sst, handle));
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_corpus OUT_DIR\n");
    return 2;
  }
  const fs::path out(argv[1]);
  const fs::path db_dir = out / "db";
  std::error_code ec;
  fs::remove_all(db_dir, ec);
  fs::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "fuzz_make_corpus: %s: %s\n", out.c_str(), ec.message().c_str());
    return 2;
  }
  if (!WriteDb(db_dir.string())) return 2;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(db_dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  bool first_sst = true;
  for (const fs::path& path : files) {
    const std::string name = path.filename().string();
    const std::string bytes = ReadBytes(path);
    uint64_t number = 0;
    shale::FileType type;
    if (!shale::ParseFileName(name, &number, &type)) continue;
    if (type == shale::FileType::kLogFile) {
      WriteBytes(out / "wal_reader", name, bytes);
      FileRecords(out / "write_batch", name, LogRecords(bytes));
    } else if (type == shale::FileType::kDescriptorFile) {
      WriteBytes(out / "manifest_reader", name, bytes);
      FileRecords(out / "version_edit", name, LogRecords(bytes));
    } else if (type == shale::FileType::kCurrentFile) {
      WriteBytes(out / "current_file", name, bytes);
    } else if (type == shale::FileType::kTableFile) {
      WriteBytes(out / "sst_table", name, bytes);
      if (first_sst && !FileTableParts(out, bytes)) return 2;
      first_sst = false;
    }
  }
  fs::remove_all(db_dir, ec);
  return 0;
}
