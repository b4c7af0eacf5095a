// OpenRocksDb: see rocksdb_open.h.
#include "hosted/rocksdb/rocksdb_open.h"

#include <functional>
#include <string>

// The members of RocksDB's test-only sync-point registry
// (test_util/sync_point.h in its sources; not among the installed
// headers) that Shale calls, declared as the shipped library exports
// them. No object of it is made or touched here.
namespace rocksdb {
class SyncPoint {
 public:
  static SyncPoint* GetInstance();
  void SetCallBack(const std::string& point, const std::function<void(void* arg)>& callback);
  void ClearCallBack(const std::string& point);
  void EnableProcessing();
  void DisableProcessing();
};
}  // namespace rocksdb

namespace shale::hosted {

namespace {

constexpr char kSessionIdPoint[] = "DBImpl::SetDbSessionId";

// 20 base-36 digits, as RocksDB encodes a session id.
std::string SessionIdOf(uint64_t seed, uint64_t count) {
  static constexpr char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  uint64_t mix = seed * 0x9e3779b97f4a7c15ull ^ (count + 1) * 0xbf58476d1ce4e5b9ull;
  std::string id(20, '0');
  for (size_t i = 0; i < id.size(); i++) {
    if (i == 10) mix = mix * 0x94d049bb133111ebull + seed;
    id[i] = kDigits[mix % 36];
    mix /= 36;
  }
  return id;
}

}  // namespace

rocksdb::Status OpenRocksDb(const rocksdb::Options& options, const std::string& path,
                            RocksDbEnv* env, rocksdb::DB** db,
                            const rocksdb::TransactionDBOptions* txn) {
  const std::string session_id = SessionIdOf(env->seed(), env->NextSessionCount());
  rocksdb::SyncPoint* hooks = rocksdb::SyncPoint::GetInstance();
  hooks->SetCallBack(kSessionIdPoint,
                     [session_id](void* arg) { *static_cast<std::string*>(arg) = session_id; });
  hooks->EnableProcessing();
  rocksdb::Status s;
  if (txn != nullptr) {
    rocksdb::TransactionDB* txn_db = nullptr;
    s = rocksdb::TransactionDB::Open(options, *txn, path, &txn_db);
    *db = txn_db;
  } else {
    s = rocksdb::DB::Open(options, path, db);
  }
  hooks->DisableProcessing();
  hooks->ClearCallBack(kSessionIdPoint);
  if (!s.ok()) return s;
  std::string taken;
  const rocksdb::Status read = (*db)->GetDbSessionId(taken);
  if (read.ok() && taken == session_id) return s;
  (void)(*db)->Close();
  delete *db;
  *db = nullptr;
  return rocksdb::Status::Aborted("the session-id hook did not take: the DB reports '" + taken +
                                  "', not '" + session_id + "'");
}

}  // namespace shale::hosted
