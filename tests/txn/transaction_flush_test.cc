// Prepared transactions under Flush, CompactRange and WAL switches: their
// data stays invisible until Commit and then appears, older versions under
// it survive, and a WAL kept for a prepared section brings back nothing
// else. Configurations and conventions: txn_test_support.h.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "txn/txn_test_support.h"

using namespace shale;
using namespace shale_test;

namespace {

// a and d committed and flushed to their own table, then "fc" prepared over
// them: a and b new, d deleted.
std::unique_ptr<Transaction> PrepareOverFlushedKeys(TxnDbFixture& f) {
  REQUIRE(f.db->Put(WriteOptions(), "a", "old").ok());
  REQUIRE(f.db->Put(WriteOptions(), "d", "old").ok());
  f.Flush();
  return f.PrepareNamed("fc", {{"a", "new"}, {"b", "new"}, {"d", kDelete}});
}

}  // namespace

TEST_CASE("prepared data survives Flush and CompactRange invisible, then commits",
          "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  // The old versions in their own table, so that compaction merges them
  // with the prepared ones.
  auto t = PrepareOverFlushedKeys(f);
  REQUIRE(f.db->Put(WriteOptions(), "z", "plain").ok());
  f.FlushAndCompact();
  // The older committed versions under the prepared ones must survive too.
  REQUIRE(f.Scan() == "a=old;d=old;z=plain;");
  REQUIRE(f.Read("a") == "old");
  REQUIRE(f.Read("b") == "NOT_FOUND");
  REQUIRE(f.Read("d") == "old");

  const Snapshot* before = f.db->GetSnapshot();
  REQUIRE(t->Commit().ok());
  REQUIRE(f.Scan() == "a=new;b=new;z=plain;");
  REQUIRE(f.Scan(before) == "a=old;d=old;z=plain;");
  REQUIRE(f.Read("a", before) == "old");
  REQUIRE(f.Read("b", before) == "NOT_FOUND");
  // And again after the commit is flushed and compacted under the snapshot.
  REQUIRE(f.db->Put(WriteOptions(), "z", "plain2").ok());
  f.FlushAndCompact();
  REQUIRE(f.Scan(before) == "a=old;d=old;z=plain;");
  REQUIRE(f.Scan() == "a=new;b=new;z=plain2;");
  f.db->ReleaseSnapshot(before);
  t.reset();
  f.ReopenFinished("a=new;b=new;z=plain2;");
}

TEST_CASE("a prepared transaction survives Flush, CompactRange and reopen", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  const bool commit = GENERATE(true, false);
  INFO((commit ? "then commit" : "then rollback"));
  f.options.write_buffer_size = 4096;
  REQUIRE(f.Open().ok());
  PrepareOverFlushedKeys(f);  // and destroyed unfinished
  // Enough later writes to switch memtables (and WALs) several times.
  for (int i = 0; i < 200; i++) {
    REQUIRE(f.db->Put(WriteOptions(), "z" + std::to_string(i), std::string(100, 'z')).ok());
  }
  f.FlushAndCompact();
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared() == std::vector<std::string>{"fc"});
  REQUIRE(f.Read("a") == "old");
  REQUIRE(f.Read("b") == "NOT_FOUND");
  REQUIRE(f.Read("d") == "old");
  f.FlushAndCompact();
  REQUIRE(f.Read("a") == "old");
  Transaction* t = f.Named("fc");
  REQUIRE((commit ? t->Commit() : t->Rollback()).ok());
  const std::string a = commit ? "new" : "old";
  const std::string b = commit ? "new" : "NOT_FOUND";
  const std::string d = commit ? "NOT_FOUND" : "old";
  for (int pass = 0; pass < 2; pass++) {
    INFO("pass " << pass);
    REQUIRE(f.Prepared().empty());
    REQUIRE(f.Read("a") == a);
    REQUIRE(f.Read("b") == b);
    REQUIRE(f.Read("d") == d);
    REQUIRE(f.Read("z7") == std::string(100, 'z'));
    f.FlushAndCompact();
    REQUIRE(f.Reopen().ok());
  }
}

TEST_CASE("prepared sections in several WALs: only unfinished ones come back", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  f.options.write_buffer_size = 4096;
  REQUIRE(f.Open().ok());
  auto filler = [&](int round) {
    for (int i = 0; i < 60; i++) {
      Status s = f.db->Put(WriteOptions(), "f" + std::to_string(i),
                           std::string(100, static_cast<char>('a' + round)));
      if (!s.ok()) return s;
    }
    return f.db->Flush(FlushOptions());
  };
  // p0 and p2 stay prepared, p1 commits, p3 rolls back; each is prepared in
  // its own WAL, with flushes between.
  std::vector<std::unique_ptr<Transaction>> txns;
  for (int i = 0; i < 4; i++) {
    const std::string name = "p" + std::to_string(i);
    txns.push_back(f.PrepareNamed(name, {{name, "v"}}));
    REQUIRE(filler(i).ok());
  }
  REQUIRE(txns[1]->Commit().ok());
  REQUIRE(txns[3]->Rollback().ok());
  REQUIRE(filler(4).ok());
  f.Compact();
  txns.clear();
  for (int reopen = 0; reopen < 2; reopen++) {
    INFO("reopen " << reopen);
    REQUIRE(f.Reopen().ok());
    REQUIRE(f.Prepared() == std::vector<std::string>{"p0", "p2"});
    REQUIRE(f.Read("p0") == "NOT_FOUND");
    REQUIRE(f.Read("p1") == "v");
    REQUIRE(f.Read("p2") == "NOT_FOUND");
    REQUIRE(f.Read("p3") == "NOT_FOUND");
    REQUIRE(f.Read("f7") == std::string(100, static_cast<char>('e' + reopen)));
    REQUIRE(filler(5 + reopen).ok());
  }
  Transaction* p0 = f.Named("p0");
  Transaction* p2 = f.Named("p2");
  REQUIRE(p2->Commit().ok());
  REQUIRE(p0->Rollback().ok());
  REQUIRE(filler(7).ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Prepared().empty());
  REQUIRE(f.Read("p0") == "NOT_FOUND");
  REQUIRE(f.Read("p1") == "v");
  REQUIRE(f.Read("p2") == "v");
  REQUIRE(f.Read("f7") == std::string(100, 'h'));
}

TEST_CASE("a WAL kept for a prepared section does not bring back overwritten data",
          "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  REQUIRE(f.Open().ok());
  f.PrepareNamed("keeper", {{"p", "v"}});  // and destroyed unfinished
  // In the kept WAL: x and y written, then deleted/overwritten in later
  // WALs and compacted down, so their old versions are gone from the tables.
  REQUIRE(f.db->Put(WriteOptions(), "x", "stale").ok());
  REQUIRE(f.db->Put(WriteOptions(), "y", "stale").ok());
  f.Flush();
  REQUIRE(f.db->Delete(WriteOptions(), "x").ok());
  REQUIRE(f.db->Put(WriteOptions(), "y", "fresh").ok());
  f.FlushAndCompact();
  REQUIRE(f.Scan() == "y=fresh;");
  for (int reopen = 0; reopen < 2; reopen++) {
    INFO("reopen " << reopen);
    REQUIRE(f.Reopen().ok());
    REQUIRE(f.Prepared() == std::vector<std::string>{"keeper"});
    REQUIRE(f.Scan() == "y=fresh;");
    f.Compact();
  }
  Transaction* keeper = f.Named("keeper");
  REQUIRE(keeper->Commit().ok());
  REQUIRE(f.Reopen().ok());
  REQUIRE(f.Scan() == "p=v;y=fresh;");
}

TEST_CASE("a prepared transaction larger than the write buffer", "[txn][recovery]") {
  TxnDbFixture f(AnyConfig());
  const bool commit = GENERATE(true, false);
  INFO((commit ? "then commit" : "then rollback"));
  f.options.write_buffer_size = 4096;
  REQUIRE(f.Open().ok());
  constexpr int kKeys = 300;
  auto key = [](int i) { return "big" + std::to_string(1000 + i); };
  for (int i = 0; i < kKeys; i += 2) REQUIRE(f.db->Put(WriteOptions(), key(i), "old").ok());
  TxnWrites writes;
  for (int i = 0; i < kKeys; i++) writes.emplace_back(key(i), std::string(60, 'n'));
  f.PrepareNamed("big", writes);  // and destroyed unfinished
  auto check = [&](bool committed) {
    std::string want;
    for (int i = 0; i < kKeys; i++) {
      if (committed) {
        want += key(i) + "=" + std::string(60, 'n') + ";";
      } else if (i % 2 == 0) {
        want += key(i) + "=old;";
      }
    }
    return f.Scan() == want;
  };
  REQUIRE(check(false));
  f.Flush();
  REQUIRE(f.Reopen().ok());
  REQUIRE(check(false));
  f.Compact();
  REQUIRE(check(false));
  Transaction* t = f.Named("big");
  REQUIRE((commit ? t->Commit() : t->Rollback()).ok());
  REQUIRE(check(commit));
  REQUIRE(f.Reopen().ok());
  REQUIRE(check(commit));
  f.Compact();
  REQUIRE(check(commit));
}
