// Shared by the TransactionDB tests in this folder: the write-path
// configurations a test runs under, a TransactionDB in a fresh temp dir, and
// shorthands for the steps and checks most tests repeat.
//
// A test that takes AnyConfig() runs once per configuration: both write
// policies (write-committed and WritePrepared), each with one and two write
// queues, and WritePrepared also with unordered_write.
//
// Outcomes are fixed without sleeps: a lock wait that must end by an unlock
// has a timeout (kLongMs) far beyond any test's run time, and only waits
// meant to time out use a short one (kShortMs). Elapsed time is never
// asserted. Threads report their statuses back; assertions run on the test's
// thread.
//
// Test-only. Not thread safe, except the TransactionDB itself. Helpers that
// REQUIRE each step they take must be called on the test's thread.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/db_read.h"
#include "common/temp_dir.h"
#include "shale/db.h"
#include "shale/transaction_db.h"

namespace shale_test {

inline constexpr int64_t kShortMs = 10;   // meant to time out
inline constexpr int64_t kLongMs = 5000;  // must never time out

inline const char* PolicyName(shale::TxnWritePolicy p) {
  return p == shale::TxnWritePolicy::kWriteCommitted ? "write-committed" : "write-prepared";
}

// A write policy and the write-path options that change how it writes.
struct TxnConfig {
  const char* name;
  shale::TxnWritePolicy policy;
  bool two_write_queues;
  bool unordered_write;
};

// Each of the five configurations in turn (a Catch GENERATE: the calling
// test case runs once per configuration).
inline TxnConfig AnyConfig() {
  using shale::TxnWritePolicy;
  return GENERATE(values<TxnConfig>({
      {"write-committed", TxnWritePolicy::kWriteCommitted, false, false},
      {"write-committed, two queues", TxnWritePolicy::kWriteCommitted, true, false},
      {"write-prepared", TxnWritePolicy::kWritePrepared, false, false},
      {"write-prepared, two queues", TxnWritePolicy::kWritePrepared, true, false},
      {"write-prepared, two queues, unordered", TxnWritePolicy::kWritePrepared, true, true},
  }));
}

// policy with one write queue and ordered writes.
inline TxnConfig PolicyOnly(shale::TxnWritePolicy policy) {
  return TxnConfig{PolicyName(policy), policy, false, false};
}

// One TransactionDB for config in a fresh temp dir. options (create_if_missing
// and config's write path set) and txn_options (config's policy) may be
// changed before Open. A DB still open is closed when this is destroyed.
class TxnDb {
 public:
  explicit TxnDb(const TxnConfig& config) : dir_(TempDir::InMemoryBase()) {
    options.create_if_missing = true;
    options.two_write_queues = config.two_write_queues;
    options.unordered_write = config.unordered_write;
    txn_options.write_policy = config.policy;
  }
  ~TxnDb() {
    if (db != nullptr) db->Close().PermitUncheckedError();  // checked by Close() when it matters
  }
  TxnDb(const TxnDb&) = delete;
  TxnDb& operator=(const TxnDb&) = delete;

  shale::Status Open() { return shale::TransactionDB::Open(options, txn_options, path(), &db); }
  // REQUIRES: open.
  shale::Status Close() {
    shale::Status s = db->Close();
    db.reset();
    return s;
  }
  // REQUIRES: open.
  shale::Status Reopen() {
    shale::Status s = Close();
    return s.ok() ? Open() : s;
  }
  std::string path() const { return dir_.Child("db"); }

  shale::Options options;
  shale::TransactionDBOptions txn_options;
  std::unique_ptr<shale::TransactionDB> db;

 private:
  TempDir dir_;
};

// Writes a transaction makes, in order: a Put, or a Delete (value kDelete).
using TxnWrites = std::vector<std::pair<std::string, std::optional<std::string>>>;
inline constexpr std::nullopt_t kDelete = std::nullopt;

// Makes writes in t, REQUIREing each to succeed.
inline void WriteAll(shale::Transaction* t, const TxnWrites& writes) {
  for (const auto& [key, value] : writes) {
    REQUIRE((value ? t->Put(key, *value) : t->Delete(key)).ok());
  }
}

// A TxnDb for one test case: while it lives, every failed assertion names
// its configuration (as an INFO would). Its shorthands act on db, which must
// be open; those that return nothing REQUIRE each step they take.
class TxnDbFixture : public TxnDb {
 public:
  explicit TxnDbFixture(const TxnConfig& config)
      : TxnDb(config),
        config_info_(Catch::MessageBuilder("INFO", CATCH_INTERNAL_LINEINFO, Catch::ResultWas::Info)
                     << config.name) {}

  std::string Read(const std::string& key, const shale::Snapshot* snap = nullptr) {
    return shale_test::Read(db.get(), key, snap);
  }
  std::string Scan(const shale::Snapshot* snap = nullptr) {
    return shale_test::Scan(db.get(), snap);
  }
  std::vector<std::string> Prepared() { return db->GetPreparedTransactionNames(); }

  // lock_timeout_ms < 0: the DB's transaction_lock_timeout_ms.
  std::unique_ptr<shale::Transaction> Begin(int64_t lock_timeout_ms = -1,
                                            bool deadlock_detect = false) {
    shale::TransactionOptions to;
    to.lock_timeout_ms = lock_timeout_ms;
    to.deadlock_detect = deadlock_detect;
    return db->BeginTransaction(shale::WriteOptions(), to);
  }
  // A new transaction named name.
  std::unique_ptr<shale::Transaction> BeginNamed(const std::string& name) {
    auto t = Begin();
    REQUIRE(t->SetName(name).ok());
    return t;
  }
  // A new transaction named name that made writes, in order, and prepared.
  std::unique_ptr<shale::Transaction> PrepareNamed(const std::string& name,
                                                   const TxnWrites& writes) {
    auto t = BeginNamed(name);
    WriteAll(t.get(), writes);
    REQUIRE(t->Prepare().ok());
    return t;
  }
  // The live transaction named name, which must exist.
  shale::Transaction* Named(const std::string& name) {
    shale::Transaction* t = db->GetTransactionByName(name);
    REQUIRE(t != nullptr);
    return t;
  }

  // Reopens, then checks that no transaction is left prepared and that
  // Scan() is scan.
  void ReopenFinished(const std::string& scan) {
    REQUIRE(Reopen().ok());
    REQUIRE(Prepared().empty());
    REQUIRE(Scan() == scan);
  }

  void Flush() { REQUIRE(db->Flush(shale::FlushOptions()).ok()); }
  void Compact() { REQUIRE(db->CompactRange(shale::CompactRangeOptions(), nullptr, nullptr).ok()); }
  void FlushAndCompact() {
    Flush();
    Compact();
  }

 private:
  Catch::ScopedMessage config_info_;
};

// A transaction's Get (or GetForUpdate) as a string, as Read does for a DB.
inline std::string TxnRead(shale::Transaction* txn, const std::string& key,
                           bool for_update = false) {
  std::string value;
  const shale::Status s = for_update ? txn->GetForUpdate(shale::ReadOptions(), key, &value)
                                     : txn->Get(shale::ReadOptions(), key, &value);
  return ReadOutcome(s, value);
}

}  // namespace shale_test
