// Which adapters this binary carries. The LevelDB and RocksDB ones are
// compiled only with SHALE_BENCH_COMPARE=ON, which also defines
// SHALE_BENCH_COMPARE for this file (bench/CMakeLists.txt).
#include "kv_store.h"

namespace shale::bench {

std::vector<std::string> KnownEngineNames() { return {"shale", "leveldb", "rocksdb"}; }

bool CompareEnginesBuilt() {
#ifdef SHALE_BENCH_COMPARE
  return true;
#else
  return false;
#endif
}

scenario::DiffEngineFactory RocksDbDiffEngineFactory() {
#ifdef SHALE_BENCH_COMPARE
  return &NewRocksDbDiffEngine;
#else
  return nullptr;
#endif
}

Status NewKvStore(std::string_view name, std::unique_ptr<KvStore>* store) {
  if (name == "shale") {
    *store = NewShaleKvStore();
    return Status::OK();
  }
  if (name != "leveldb" && name != "rocksdb") {
    return Status::InvalidArgument("unknown engine '" + std::string(name) +
                                   "' (want shale, leveldb, rocksdb or all)");
  }
  if (!CompareEnginesBuilt()) {
    return Status::NotSupported("engine '" + std::string(name) +
                                "' is not built in; reconfigure with -DSHALE_BENCH_COMPARE=ON");
  }
#ifdef SHALE_BENCH_COMPARE
  *store = name == "leveldb" ? NewLevelDbKvStore() : NewRocksDbKvStore();
#endif
  return Status::OK();
}

}  // namespace shale::bench
