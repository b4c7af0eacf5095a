// The recovery oracle accepts what a correct engine may recover and names
// the broken promise for each kind of wrong recovery (the checker bites).
#include <catch2/catch.hpp>

#include "scenarios/oracle/recovery_check.h"

using namespace shale;
using namespace shale::scenario;

namespace {

// Issues and acknowledges a one-key write with the next sequence number.
struct Recorder {
  History h{State{}};
  uint64_t next_seq = 1;
  uint64_t Put(const std::string& k, const std::string& v, bool sync = false, bool wal = true) {
    const uint64_t id = h.BeginWrite({KeyOp{k, v}}, wal, sync);
    h.EndWrite(id, Status::OK(), next_seq++);
    return id;
  }
  uint64_t Del(const std::string& k, bool sync = false) {
    const uint64_t id = h.BeginWrite({KeyOp{k, std::nullopt}}, true, sync);
    h.EndWrite(id, Status::OK(), next_seq++);
    return id;
  }
};

}  // namespace

TEST_CASE("the whole acknowledged history recovers", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  r.Put("b", "2");
  const RecoveryVerdict v = CheckRecovery(r.h, /*process_crash=*/true, {{"a", "1"}, {"b", "2"}});
  REQUIRE(v.ok);
  REQUIRE(v.cut == 2);
}

TEST_CASE("power loss may drop an unsynced suffix", "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);
  r.Put("b", "2");
  r.Put("a", "3");
  const RecoveryVerdict v = CheckRecovery(r.h, /*process_crash=*/false, {{"a", "1"}});
  REQUIRE(v.ok);
  REQUIRE(v.cut == 1);
}

TEST_CASE("a hole in the recovered prefix is caught", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  r.Put("b", "2");
  r.Put("c", "3");
  const RecoveryVerdict v = CheckRecovery(r.h, false, {{"a", "1"}, {"c", "3"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "prefix recovery");
}

TEST_CASE("a lost sync write is a durability failure", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  r.Put("b", "2", /*sync=*/true);
  const RecoveryVerdict v = CheckRecovery(r.h, false, {{"a", "1"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "durability");
  REQUIRE(v.key == "b");
  REQUIRE(v.expected == "2");
  REQUIRE(v.observed == "<absent>");
}

TEST_CASE("a process crash must keep every acknowledged WAL write", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  r.Put("b", "2");
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {{"a", "1"}}).ok);
  const RecoveryVerdict v = CheckRecovery(r.h, /*process_crash=*/true, {{"a", "1"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "durability");
}

TEST_CASE("SyncWAL and Flush make earlier writes durable", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  const uint64_t token = r.h.DurabilityBarrierStart();
  r.Put("b", "2");  // after the barrier started: not covered
  r.h.SyncWalDone(token);
  REQUIRE_FALSE(CheckRecovery(r.h, false, {}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}}).ok);

  Recorder f;
  f.Put("x", "1", false, /*wal=*/false);
  REQUIRE(CheckRecovery(f.h, true, {}).ok);  // an unflushed disable_wal write may go
  f.h.FlushDone(f.h.DurabilityBarrierStart());
  REQUIRE_FALSE(CheckRecovery(f.h, true, {}).ok);
}

TEST_CASE("a phantom value is caught", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  const RecoveryVerdict v = CheckRecovery(r.h, false, {{"a", "1"}, {"zz", "never"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "no phantoms");
  REQUIRE(v.key == "zz");
}

TEST_CASE("a resurrected delete is caught", "[oracle]") {
  Recorder r;
  r.Put("a", "1", true);
  r.Del("a", true);
  const RecoveryVerdict v = CheckRecovery(r.h, false, {{"a", "1"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "durability");
}

TEST_CASE("an unflushed disable_wal write may be lost under later WAL writes", "[oracle]") {
  Recorder r;
  r.Put("a", "1", false, /*wal=*/false);
  r.Put("b", "2", /*sync=*/true);
  REQUIRE(CheckRecovery(r.h, false, {{"b", "2"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"b", "2"}}).ok);
}

TEST_CASE("a failed write is indeterminate, a half-applied batch is not atomic", "[oracle]") {
  Recorder r;
  r.Put("a", "1", true);
  const uint64_t id = r.h.BeginWrite({KeyOp{"b", "2"}, KeyOp{"c", "3"}}, true, true);
  r.h.EndWrite(id, Status::IOError("injected"), 0);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"b", "2"}, {"c", "3"}}).ok);
  // An acked batch cut in half (b without c) is no prefix of anything.
  Recorder batch;
  const uint64_t w = batch.h.BeginWrite({KeyOp{"b", "2"}, KeyOp{"c", "3"}}, true, false);
  batch.h.EndWrite(w, Status::OK(), 1);
  REQUIRE(CheckRecovery(batch.h, false, {}).ok);
  REQUIRE_FALSE(CheckRecovery(batch.h, false, {{"b", "2"}}).ok);
}

TEST_CASE("snapshots and in-flight reads", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  r.Put("a", "2");
  REQUIRE(r.h.StateAtSequence(1) == State{{"a", "1"}});
  REQUIRE(r.h.ExpectedState() == State{{"a", "2"}});
  const uint64_t since = r.h.acked_count();
  const uint64_t id = r.h.BeginWrite({KeyOp{"a", "3"}}, true, false);
  const std::vector<Value> during = r.h.PossibleValues("a", since);
  REQUIRE(during == std::vector<Value>{Value("2"), Value("3")});
  r.h.EndWrite(id, Status::OK(), 3);
}
