// Prepared transactions across reopen: recovered with their writes
// invisible, their locks and their names, then committed or rolled back;
// a plain DB refuses their WAL. Configurations and conventions:
// txn_test_support.h.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "common/file_damage.h"
#include "txn/txn_test_support.h"

using namespace shale;
using namespace shale_test;

TEST_CASE("a prepared transaction is recovered after reopen and can be committed",
          "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  {
    auto t = f.PrepareNamed("rec", {{"a", "new"}, {"b", "new"}});
    auto plain = f.Begin();
    REQUIRE(plain->Put("c", "committed").ok());
    REQUIRE(plain->Commit().ok());
  }  // destroyed unfinished: as if the process had died here
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"rec"});
  Transaction* rec = f.Named("rec");
  REQUIRE(rec->GetName() == "rec");
  REQUIRE(rec->GetState() == Transaction::State::kPrepared);
  REQUIRE(f.Scan() == "a=old;c=committed;");
  // It holds its locks, and its name.
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(other->Put("b", "other").IsTimedOut());
  REQUIRE(other->SetName("rec").IsInvalidArgument());
  other.reset();

  // Closing with it unfinished keeps it prepared.
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"rec"});
  rec = f.Named("rec");
  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(rec->Commit().ok());
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.Scan() == "a=new;b=new;c=committed;");
  REQUIRE(f.Scan(before) == "a=old;c=committed;");
  f.db->ReleaseSnapshot(before);
  auto after = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(after->Put("b", "after").ok());
  REQUIRE(after->Commit().ok());
  after.reset();

  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.db->GetTransactionByName("rec") == nullptr);
  REQUIRE(f.Scan() == "a=new;b=after;c=committed;");
}

TEST_CASE("a recovered prepared transaction can be rolled back", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  f.PrepareNamed("t2", {{"a.t2", "new"}});
  f.PrepareNamed("t1", {{"a.t1", "new"}, {"a", kDelete}});
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"t1", "t2"});
  Transaction* t1 = f.Named("t1");
  Transaction* t2 = f.Named("t2");
  REQUIRE(f.Scan() == "a=old;");
  REQUIRE(t1->Rollback().ok());
  REQUIRE(t1->GetState() == Transaction::State::kRolledBack);
  REQUIRE(t2->Commit().ok());
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.Scan() == "a=old;a.t2=new;");
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a.t1", "other").ok());
  REQUIRE(other->Rollback().ok());
  other.reset();
  f.ReopenFinished("a=old;a.t2=new;");
}

TEST_CASE("a destroyed prepared transaction stays prepared, owned by the DB", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  f.PrepareNamed("adopted", {{"a", "new"}});  // and destroyed unfinished
  REQUIRE(f.Prepared() == std::vector<std::string>{"adopted"});
  Transaction* t = f.Named("adopted");
  REQUIRE(t->GetState() == Transaction::State::kPrepared);
  REQUIRE(f.Read("a") == "NOT_FOUND");
  auto other = f.Begin(/*lock_timeout_ms=*/0);
  REQUIRE(other->Put("a", "other").IsTimedOut());
  REQUIRE(other->SetName("adopted").IsInvalidArgument());
  REQUIRE(t->Commit().ok());
  REQUIRE(f.Read("a") == "new");
  REQUIRE(f.Prepared().empty());
  REQUIRE(other->Put("a", "other").ok());
  REQUIRE(other->Commit().ok());
  other.reset();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.Read("a") == "other");
}

TEST_CASE("a name is reusable once its transaction finished, across recovery", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  for (int round = 0; round < 3; round++) {  // committed, rolled back, left prepared
    auto t = f.PrepareNamed(
        "same", {{"k", "round" + std::to_string(round)}, {"r" + std::to_string(round), "x"}});
    if (round == 0) REQUIRE(t->Commit().ok());
    if (round == 1) REQUIRE(t->Rollback().ok());
  }
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"same"});
  REQUIRE(f.Scan() == "k=round0;r0=x;");
  Transaction* t = f.Named("same");
  REQUIRE(t->Commit().ok());
  REQUIRE(f.Scan() == "k=round2;r0=x;r2=x;");
  f.ReopenFinished("k=round2;r0=x;r2=x;");
}

TEST_CASE("an empty or read-only transaction can be prepared, recovered and finished",
          "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  REQUIRE(f.db->Put(WriteOptions(), "a", "1").ok());
  for (const char* name : {"empty", "reader"}) {
    auto t = f.BeginNamed(name);
    if (std::string(name) == "reader") REQUIRE(TxnRead(t.get(), "a", /*for_update=*/true) == "1");
    REQUIRE(t->Prepare().ok());
  }
  REQUIRE(f.Prepared() == std::vector<std::string>{"empty", "reader"});
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"empty", "reader"});
  Transaction* empty = f.Named("empty");
  Transaction* reader = f.Named("reader");
  REQUIRE(empty->Commit().ok());
  REQUIRE(reader->Rollback().ok());
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.db->Put(WriteOptions(), "b", "2").ok());
  f.ReopenFinished("a=1;b=2;");
}

TEST_CASE("a plain DB refuses a WAL that holds a prepared transaction", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  f.PrepareNamed("p", {{"a", "new"}});  // and destroyed unfinished
  REQUIRE(f.Close().ok());
  std::unique_ptr<DB> plain;
  Options o;
  Status s = DB::Open(o, f.path(), &plain);
  INFO(s.ToString());
  REQUIRE_FALSE(s.ok());
  REQUIRE(plain == nullptr);
  REQUIRE(f.Open().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"p"});
}

namespace {

// Writes 600 plain keys of 100 bytes after a prepared transaction whose
// section keeps their WAL (several 32 KiB blocks), and closes the DB.
// Returns that WAL's path.
std::string PreparedThenManyWrites(TxnDbFixture* f) {
  REQUIRE(f->Open().ok());
  f->PrepareNamed("kept", {{"p", "v"}});
  for (int i = 0; i < 600; i++) {
    REQUIRE(f->db->Put(WriteOptions(), "k" + std::to_string(1000 + i), std::string(100, 'x')).ok());
  }
  REQUIRE(f->Close().ok());
  return shale_test::NewestWal(f->path());
}

}  // namespace

TEST_CASE("point-in-time recovery cuts a damaged WAL to the prefix it replayed",
          "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  f.options.wal_recovery_mode = WALRecoveryMode::kPointInTimeRecovery;
  const std::string wal = PreparedThenManyWrites(&f);
  const uint64_t size_bytes = std::filesystem::file_size(wal);
  shale_test::FlipByte(wal, size_bytes / 2);
  REQUIRE(f.Open().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"kept"});
  const std::string recovered = f.Scan();
  REQUIRE(recovered.find("k1000=") != std::string::npos);
  REQUIRE(recovered.find("k1599=") == std::string::npos);
  // The log stays (its prepared section is needed) but ends where replay
  // stopped, so the next Open, reading it for its markers, meets no damage.
  REQUIRE(std::filesystem::file_size(wal) <= size_bytes / 2);
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"kept"});
  REQUIRE(f.Scan() == recovered);
}

TEST_CASE("damage in a WAL read only for its markers is Corruption but to skip-any",
          "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  const bool torn_tail = GENERATE(false, true);
  f.options.wal_recovery_mode = torn_tail ? WALRecoveryMode::kTolerateCorruptedTailRecords
                                          : WALRecoveryMode::kPointInTimeRecovery;
  INFO((torn_tail ? "a torn tail, tolerate-tail" : "a flip, point in time"));
  const std::string wal = PreparedThenManyWrites(&f);
  REQUIRE(f.Open().ok());  // its writes go to a table; the log stays for "kept"
  REQUIRE(f.Close().ok());
  REQUIRE(std::filesystem::exists(wal));
  const uint64_t size_bytes = std::filesystem::file_size(wal);
  if (torn_tail) {
    std::filesystem::resize_file(wal, size_bytes - 50);  // inside the last record
  } else {
    shale_test::FlipByte(wal, size_bytes / 2);
  }
  // The tables hold writes logged after the damage: no prefix of the WAL
  // matches them, and commit markers past the damage are lost.
  const Status s = f.Open();
  INFO(s.ToString());
  REQUIRE(s.IsCorruption());
  REQUIRE(s.ToString().find(std::filesystem::path(wal).filename().string()) != std::string::npos);
  f.options.wal_recovery_mode = WALRecoveryMode::kSkipAnyCorruptedRecords;
  REQUIRE(f.Open().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"kept"});
}
