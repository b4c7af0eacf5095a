// The RocksDB adapters' shared conversions. See rocksdb_common.h.
#include "rocksdb_common.h"

#include "rocksdb/cache.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"

namespace shale::bench {

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound();
  if (s.IsCorruption()) return Status::Corruption("rocksdb", s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument("rocksdb", s.ToString());
  if (s.IsNotSupported()) return Status::NotSupported("rocksdb", s.ToString());
  return Status::IOError("rocksdb", s.ToString());
}

rocksdb::Options ToRocksOptions(const KvOptions& o) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(o.cache_size_bytes);
  if (o.bloom_bits_per_key > 0) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(o.bloom_bits_per_key));
  }
  table.block_size = o.block_size_bytes;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = o.compression == kSnappyCompression ? rocksdb::kSnappyCompression
                        : o.compression == kLZ4Compression  ? rocksdb::kLZ4Compression
                        : o.compression == kZSTD            ? rocksdb::kZSTD
                                                            : rocksdb::kNoCompression;
  options.write_buffer_size = o.write_buffer_size_bytes;
  options.allow_mmap_reads = o.mmap_read;
  options.allow_mmap_writes = o.mmap_write;
  options.max_open_files = o.max_open_files;
  options.target_file_size_base = o.target_file_size_base_bytes;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.allow_concurrent_memtable_write = o.allow_concurrent_memtable_write;
  options.enable_pipelined_write = o.enable_pipelined_write;
  options.unordered_write = o.unordered_write;
  options.two_write_queues = o.two_write_queues;
  options.memtable_prefix_bloom_size_ratio = o.memtable_bloom_size_ratio;
  options.memtable_whole_key_filtering = o.memtable_whole_key_filtering;
  return options;
}

}  // namespace shale::bench
