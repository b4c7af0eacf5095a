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
  // Issues a WAL batch that fails (indeterminate).
  uint64_t Failed(std::vector<KeyOp> ops, bool sync = false) {
    const uint64_t id = h.BeginWrite(std::move(ops), true, sync);
    h.EndWrite(id, Status::IOError("injected"), 0);
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

TEST_CASE("a buffered log's writes survive a process crash once written out", "[oracle]") {
  Recorder r;
  r.h = History(State{}, ReadVisibility::kWholeBatch, WalWrites::kByBarrier);
  r.Put("a", "1");
  r.Put("b", "2");
  // Still in the engine's buffer: a process crash may take both, as a suffix.
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {}).ok);
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {{"b", "2"}}).property == "prefix recovery");
  const uint64_t token = r.h.DurabilityBarrierStart();
  r.Put("c", "3");  // after the FlushWAL started: not covered
  r.h.WalFlushDone(token);
  const RecoveryVerdict lost = CheckRecovery(r.h, /*process_crash=*/true, {{"a", "1"}});
  REQUIRE_FALSE(lost.ok);
  REQUIRE(lost.property == "durability");
  REQUIRE(lost.key == "b");
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {{"a", "1"}, {"b", "2"}}).ok);
  // Written out, not synced: a power loss may still take them.
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {}).ok);
  // A sync write is written and synced, and orders every write before it in.
  r.Put("d", "4", /*sync=*/true);
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {{"a", "1"}, {"b", "2"}}).property ==
          "durability");
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}}).ok);
}

TEST_CASE("SyncWAL of a buffered log syncs only what was written out", "[oracle]") {
  Recorder r;
  r.h = History(State{}, ReadVisibility::kWholeBatch, WalWrites::kByBarrier);
  r.Put("a", "1");
  r.h.SyncWalDone(r.h.SyncWalStart());  // the record was still in the buffer
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {}).ok);
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {}).ok);
  r.h.WalFlushDone(r.h.DurabilityBarrierStart());
  r.Put("b", "2");
  r.h.SyncWalDone(r.h.SyncWalStart());  // a is in the file, b is not
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {}).property == "durability");
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {{"a", "1"}}).ok);
  // A fresh history (after a crash check) has nothing written out yet.
  r.h.Reset({{"a", "1"}});
  r.Put("c", "3");
  REQUIRE(r.h.SyncWalStart() == 0);
  r.h.SyncWalDone(r.h.SyncWalStart());
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {{"a", "1"}}).ok);
  // Without a buffer, SyncWAL covers every write acknowledged before it.
  Recorder plain;
  plain.Put("a", "1");
  REQUIRE(plain.h.SyncWalStart() == plain.h.DurabilityBarrierStart());
}

TEST_CASE("a clean Close writes out a buffered log", "[oracle]") {
  Recorder r;
  r.h = History(State{}, ReadVisibility::kWholeBatch, WalWrites::kByBarrier);
  r.Put("a", "1");
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {}).ok);
  r.h.CloseDone(r.h.DurabilityBarrierStart());
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/true, {}).property == "durability");
  REQUIRE(CheckRecovery(r.h, /*process_crash=*/false, {}).ok);  // not synced
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
  r.Failed({KeyOp{"b", "2"}, KeyOp{"c", "3"}}, true);
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
  const ReadStart since = r.h.BeginRead();
  const uint64_t id = r.h.BeginWrite({KeyOp{"a", "3"}}, true, false);
  const std::vector<Value> during = r.h.PossibleValues("a", since);
  REQUIRE(during == std::vector<Value>{Value("2"), Value("3")});
  r.h.EndWrite(id, Status::OK(), 3);
}

TEST_CASE("an in-flight batch recovers whole or not at all", "[oracle]") {
  Recorder r;
  r.Put("a", "1", true);
  const uint64_t id =
      r.h.BeginWrite({KeyOp{"b", "2"}, KeyOp{"c", "3"}, KeyOp{"d", std::nullopt}}, true, false);
  r.h.AbandonPending();  // the crash cut it short
  (void)id;
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"b", "2"}, {"c", "3"}}).ok);
  // Half of it: b without c, or b and c with d's delete undone.
  const RecoveryVerdict half = CheckRecovery(r.h, false, {{"a", "1"}, {"b", "2"}});
  REQUIRE_FALSE(half.ok);
  REQUIRE(half.property == "atomicity");
  REQUIRE(half.key == "c");
  Recorder d;
  d.Put("d", "0", true);
  d.Failed({KeyOp{"b", "2"}, KeyOp{"d", std::nullopt}});
  REQUIRE(CheckRecovery(d.h, false, {{"b", "2"}}).ok);
  REQUIRE(CheckRecovery(d.h, false, {{"d", "0"}}).ok);
  const RecoveryVerdict undeleted = CheckRecovery(d.h, false, {{"b", "2"}, {"d", "0"}});
  REQUIRE_FALSE(undeleted.ok);
  REQUIRE(undeleted.property == "atomicity");
  REQUIRE(undeleted.key == "d");
}

// A delete is evidence too: the key gone where the base held it, and no
// other write of the history deleting it, shows the batch happened.
TEST_CASE("a batch whose delete shows and whose put does not breaks atomicity", "[oracle]") {
  History h(State{{"a", "1"}});
  const uint64_t batch = h.BeginWrite({KeyOp{"a", std::nullopt}, KeyOp{"b", "2"}}, true, false);
  h.EndWrite(batch, Status::IOError("injected"), 0);
  REQUIRE(CheckRecovery(h, false, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(h, false, {{"b", "2"}}).ok);
  const RecoveryVerdict half = CheckRecovery(h, false, {});
  REQUIRE_FALSE(half.ok);
  REQUIRE(half.property == "atomicity");
  REQUIRE(half.key == "b");
  // Another write that may have deleted "a" takes the proof away.
  const uint64_t other = h.BeginWrite({KeyOp{"a", std::nullopt}}, true, false);
  h.EndWrite(other, Status::IOError("injected"), 0);
  REQUIRE(CheckRecovery(h, false, {}).ok);
  // A delete the batch itself overwrites is no evidence.
  History o(State{{"a", "1"}});
  const uint64_t overwritten =
      o.BeginWrite({KeyOp{"a", std::nullopt}, KeyOp{"a", "3"}, KeyOp{"c", "4"}}, true, false);
  o.EndWrite(overwritten, Status::IOError("injected"), 0);
  REQUIRE(CheckRecovery(o, false, {{"a", "1"}}).ok);
  // Absent from the base too, a key's absence proves nothing: a write the
  // cut may leave out (not sync, a power loss) put it.
  Recorder n;
  n.Put("x", "7");
  n.Failed({KeyOp{"x", std::nullopt}, KeyOp{"y", "5"}});
  REQUIRE(CheckRecovery(n.h, false, {}).ok);
}

TEST_CASE("an unflushed disable_wal batch is lost whole or kept whole", "[oracle]") {
  Recorder r;
  const uint64_t id = r.h.BeginWrite({KeyOp{"b", "2"}, KeyOp{"c", "3"}}, /*wal=*/false, false);
  r.h.EndWrite(id, Status::OK(), r.next_seq++);
  r.Put("d", "4", /*sync=*/true);
  REQUIRE(CheckRecovery(r.h, false, {{"d", "4"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"b", "2"}, {"c", "3"}, {"d", "4"}}).ok);
  const RecoveryVerdict half = CheckRecovery(r.h, false, {{"b", "2"}, {"d", "4"}});
  REQUIRE_FALSE(half.ok);
  REQUIRE(half.property == "atomicity");
}

TEST_CASE("a rollback's copy of a lost disable_wal value proves nothing of its batch", "[oracle]") {
  Recorder r;
  const uint64_t id = r.h.BeginWrite({KeyOp{"b", "2"}, KeyOp{"c", "3"}}, /*wal=*/false, false);
  r.h.EndWrite(id, Status::OK(), r.next_seq++);
  // A WritePrepared rollback over "b" writes its committed value back.
  r.Put("b", "2");
  REQUIRE(CheckRecovery(r.h, false, {{"b", "2"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"b", "2"}, {"c", "3"}}).ok);
  // A failed rollback copied the base's value of "a": no proof either.
  History from_base(State{{"a", "0"}});
  const uint64_t copy =
      from_base.BeginWrite({KeyOp{"a", "0"}, KeyOp{"b", "9"}}, /*wal=*/true, false);
  from_base.EndWrite(copy, Status::IOError("injected"), 0);
  REQUIRE(CheckRecovery(from_base, false, {{"a", "0"}}).ok);
  // A value only the batch gave still proves it happened.
  const RecoveryVerdict half = CheckRecovery(r.h, false, {{"c", "3"}});
  REQUIRE_FALSE(half.ok);
  REQUIRE(half.property == "atomicity");
  REQUIRE(half.key == "b");
}

TEST_CASE("a failed write is ordered before writes that began after it returned", "[oracle]") {
  Recorder r;
  r.Put("a", "1", true);
  r.Failed({KeyOp{"a", "2"}, KeyOp{"b", "2"}});
  const ReadStart since = r.h.BeginRead();
  REQUIRE(r.h.IsPossible("a", since, Value("2")));  // may still land
  r.Put("a", "3", true);                            // began after the failed write returned
  REQUIRE_FALSE(r.h.IsPossible("a", r.h.BeginRead(), Value("2")));
  REQUIRE(r.h.IsPossible("b", r.h.BeginRead(), Value("2")));
  // After a crash: the failed write may have happened, but under a=3.
  REQUIRE(CheckRecovery(r.h, false, {{"a", "3"}, {"b", "2"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "3"}}).ok);
  REQUIRE_FALSE(CheckRecovery(r.h, false, {{"a", "2"}, {"b", "2"}}).ok);
}

TEST_CASE("a value from an earlier phase coming back is a resurrection", "[oracle]") {
  Recorder r;
  r.Put("a", "old", true);
  r.h.Reset(State{});  // a crash check recovered a state without it
  r.Put("b", "1", true);
  const RecoveryVerdict back = CheckRecovery(r.h, false, {{"a", "old"}, {"b", "1"}});
  REQUIRE_FALSE(back.ok);
  REQUIRE(back.property == "resurrection");
  REQUIRE(back.key == "a");
  const RecoveryVerdict phantom = CheckRecovery(r.h, false, {{"a", "never"}, {"b", "1"}});
  REQUIRE(phantom.property == "no phantoms");
}

TEST_CASE("a lost must-survive write is named over a key that only shows the order", "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);
  r.Put("z", "1", /*sync=*/true);
  r.Put("a", "2");
  r.Put("a", "3");
  // "a" = 2 breaks only the order (no cut ends between a = 2 and a = 3 yet
  // holds z); "z" missing is a lost sync write.
  const RecoveryVerdict v = CheckRecovery(r.h, false, {{"a", "2"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "durability");
  REQUIRE(v.key == "z");
}

TEST_CASE("an indeterminate write a read observed cannot vanish without a crash", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  r.Put("b", "1");
  r.Failed({KeyOp{"a", "2"}, KeyOp{"b", std::nullopt}});
  const ReadStart concurrent = r.h.BeginRead();  // begins before the observation ends
  const ReadStart first = r.h.BeginRead();
  // Unobserved, the failed write may or may not show.
  REQUIRE(r.h.IsPossible("a", first, Value("1")));
  REQUIRE(r.h.Observe("a", first, Value("2")));  // only the failed write explains it
  const ReadStart later = r.h.BeginRead();
  // It happened: neither the value it overwrote nor, on its other key, the
  // value its delete removed may show again.
  REQUIRE_FALSE(r.h.IsPossible("a", later, Value("1")));
  REQUIRE(r.h.IsPossible("a", later, Value("2")));
  REQUIRE_FALSE(r.h.IsPossible("b", later, Value("1")));
  REQUIRE(r.h.IsPossible("b", later, Value()));
  REQUIRE(r.h.PossibleValues("a", later) == std::vector<Value>{Value("2")});
  // A read that began before the observation ended is not bound by it.
  REQUIRE(r.h.IsPossible("a", concurrent, Value("1")));
  // A write that began after the failed one returned still overwrites it.
  r.Put("a", "3");
  REQUIRE(r.h.IsPossible("a", r.h.BeginRead(), Value("3")));
  REQUIRE_FALSE(r.h.IsPossible("a", r.h.BeginRead(), Value("2")));
}

TEST_CASE("with per-key visibility an observation binds only the key read", "[oracle]") {
  // A pending batch under unordered_write: a reader saw its value of "a";
  // its insert of "b" may still be on the way.
  History h(State{{"a", "1"}, {"b", "1"}}, ReadVisibility::kPerKey);
  h.BeginWrite({KeyOp{"a", "2"}, KeyOp{"b", "2"}}, /*wal=*/true, /*sync=*/false);
  REQUIRE(h.Observe("a", h.BeginRead(), Value("2")));
  const ReadStart later = h.BeginRead();
  REQUIRE(h.IsPossible("b", later, Value("1")));
  REQUIRE(h.IsPossible("b", later, Value("2")));
  // The key read stays bound: its insert is done.
  REQUIRE_FALSE(h.IsPossible("a", later, Value("1")));
  // Once "b" is observed too, it is bound as well.
  REQUIRE(h.Observe("b", later, Value("2")));
  REQUIRE_FALSE(h.IsPossible("b", h.BeginRead(), Value("1")));
  REQUIRE(h.observed_writes() == 1);
}

TEST_CASE("a value two writes could have given observes neither", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  for (int i = 0; i < 2; i++) r.Failed({KeyOp{"a", "2"}});
  REQUIRE(r.h.Observe("a", r.h.BeginRead(), Value("2")));
  REQUIRE(r.h.IsPossible("a", r.h.BeginRead(), Value("1")));
  // A value the settled write gave proves nothing either.
  r.Failed({KeyOp{"a", "1"}});
  REQUIRE(r.h.Observe("a", r.h.BeginRead(), Value("1")));
  REQUIRE(r.h.IsPossible("a", r.h.BeginRead(), Value("1")));
  // A value no write gave is no observation, and fails.
  REQUIRE_FALSE(r.h.Observe("a", r.h.BeginRead(), Value("9")));
}

TEST_CASE("a check narrowed by damage leaves out only the unreadable keys", "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);
  r.Put("b", "2");
  r.Put("c", "3", /*sync=*/true);
  // b cannot be read: every cut from the floor (all three) on fits, and b
  // is known to hold 2.
  RecoveryVerdict v = CheckRecovery(r.h, CheckScope{false, true, {"b"}}, {{"a", "1"}, {"c", "3"}});
  REQUIRE(v.ok);
  REQUIRE(v.unknown.at("b") == std::vector<Value>{Value("2")});
  // The keys read are still held to every promise.
  v = CheckRecovery(r.h, CheckScope{false, true, {"b"}}, {{"a", "1"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "durability");
  REQUIRE(v.key == "c");
  REQUIRE_FALSE(
      CheckRecovery(r.h, CheckScope{false, true, {"b"}}, {{"a", "1"}, {"c", "3"}, {"d", "?"}}).ok);
  // With nothing synced, b may hold what any cut that fits a gave it:
  // a absent fits only the empty cut; a present, the cuts with and
  // without b's write.
  Recorder loose;
  loose.Put("a", "1");
  loose.Put("b", "2");
  v = CheckRecovery(loose.h, CheckScope{false, true, {"b"}}, {});
  REQUIRE(v.ok);
  REQUIRE(v.unknown.at("b") == std::vector<Value>{Value()});
  v = CheckRecovery(loose.h, CheckScope{false, true, {"b"}}, {{"a", "1"}});
  REQUIRE(v.ok);
  REQUIRE(v.unknown.at("b") == std::vector<Value>{Value(), Value("2")});
}

TEST_CASE("a narrowed check still holds a batch whole on the keys it read", "[oracle]") {
  Recorder r;
  r.Put("a", "0");
  r.Failed({KeyOp{"a", "1"}, KeyOp{"b", "1"}, KeyOp{"c", "1"}});
  // b unreadable: a shows the batch, so c must too.
  REQUIRE(CheckRecovery(r.h, CheckScope{false, true, {"b"}}, {{"a", "1"}, {"c", "1"}}).ok);
  const RecoveryVerdict v = CheckRecovery(r.h, CheckScope{false, true, {"b"}}, {{"a", "1"}});
  REQUIRE_FALSE(v.ok);
  REQUIRE(v.property == "atomicity");
  REQUIRE(v.key == "c");
}

TEST_CASE("a key the last check could not read is one of its possible values", "[oracle]") {
  Recorder r;
  r.h.Reset({{"a", "1"}}, {{"b", {Value(), Value("2")}}});
  REQUIRE(r.h.BaseValues("b") == std::vector<Value>{Value(), Value("2")});
  REQUIRE(r.h.IsPossible("b", r.h.BeginRead(), Value()));
  REQUIRE(r.h.IsPossible("b", r.h.BeginRead(), Value("2")));
  REQUIRE_FALSE(r.h.IsPossible("b", r.h.BeginRead(), Value("9")));
  REQUIRE(r.h.PossibleValues("b", r.h.BeginRead()) == std::vector<Value>{Value(), Value("2")});
  // The next check takes b from either value, and not from a third.
  REQUIRE(CheckRecovery(r.h, true, {{"a", "1"}, {"b", "2"}}).ok);
  REQUIRE(CheckRecovery(r.h, true, {{"a", "1"}}).ok);
  REQUIRE_FALSE(CheckRecovery(r.h, true, {{"a", "1"}, {"b", "9"}}).ok);
  // An acknowledged write settles it.
  r.Put("b", "3");
  REQUIRE(r.h.PossibleValues("b", r.h.BeginRead()) == std::vector<Value>{Value("3")});
  REQUIRE_FALSE(CheckRecovery(r.h, true, {{"a", "1"}, {"b", "2"}}).ok);
  // A value the unknown base held coming back after a later reset is a
  // resurrection, not a phantom.
  r.h.Reset({{"a", "1"}, {"b", "3"}});
  const RecoveryVerdict v = CheckRecovery(r.h, true, {{"a", "1"}, {"b", "2"}});
  REQUIRE(v.property == "resurrection");
}

TEST_CASE("without durability, a check still holds the order and the batches", "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);
  r.Put("b", "2", /*sync=*/true);
  r.h.BeginWrite({KeyOp{"c", "3"}, KeyOp{"d", "3"}}, true, true);  // pending at the crash
  r.h.AbandonPending();
  const CheckScope waived{/*process_crash=*/false, /*durability=*/false, {}};
  REQUIRE_FALSE(CheckRecovery(r.h, false, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, waived, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, waived, {}).ok);
  REQUIRE(CheckRecovery(r.h, waived, {{"b", "2"}}).property == "prefix recovery");
  REQUIRE(CheckRecovery(r.h, waived, {{"a", "1"}, {"b", "2"}, {"c", "3"}}).property == "atomicity");
  REQUIRE(CheckRecovery(r.h, waived, {{"a", "1"}, {"e", "5"}}).property == "no phantoms");
}

// When no cut explains the state, a write recovered in part is named as
// such even if every cut would have to hold it (a sync write under a
// waiver): its own value shows on one key and an older value on another.
// Where durability holds, its lost part is the stronger evidence.
TEST_CASE("a sync write recovered in part under a waiver is an atomicity failure", "[oracle]") {
  Recorder r;
  r.Put("a", "0", /*sync=*/true);
  const uint64_t id =
      r.h.BeginWrite({KeyOp{"a", "1"}, KeyOp{"a", "2"}, KeyOp{"b", "3"}}, true, true);
  r.h.EndWrite(id, Status::OK(), r.next_seq);
  const CheckScope waived{/*process_crash=*/false, /*durability=*/false, {}};
  const RecoveryVerdict half = CheckRecovery(r.h, waived, {{"a", "1"}});
  REQUIRE_FALSE(half.ok);
  CHECK(half.property == "atomicity");
  CHECK(CheckRecovery(r.h, false, {{"a", "1"}}).property == "durability");
  // Its final value on one key without its other key: the same.
  CHECK(CheckRecovery(r.h, waived, {{"a", "2"}}).property == "atomicity");
  CHECK(CheckRecovery(r.h, waived, {{"a", "2"}, {"b", "3"}}).ok);
}

// Point in time stops at an injected WAL flip: what the log held from it on
// may be lost, but a write a successful Flush put in a table may not.
TEST_CASE("without durability, a flushed write must still survive", "[oracle]") {
  Recorder r;
  r.Put("a", "1");
  const uint64_t flush = r.h.DurabilityBarrierStart();
  r.h.FlushDone(flush);
  r.Put("b", "2", /*sync=*/true);
  const CheckScope waived{/*process_crash=*/false, /*durability=*/false, {}};
  REQUIRE(CheckRecovery(r.h, waived, {{"a", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, waived, {{"a", "1"}, {"b", "2"}}).ok);
  const RecoveryVerdict lost = CheckRecovery(r.h, waived, {});
  REQUIRE_FALSE(lost.ok);
  REQUIRE(lost.property == "durability");
  REQUIRE(lost.key == "a");
}

TEST_CASE("a write in flight at the crash may precede writes acknowledged after it began",
          "[oracle]") {
  // Two write queues: t's data is logged first and not yet published when
  // p is acknowledged; a power loss may keep t's record and lose p's.
  Recorder r;
  r.Put("a", "1", /*sync=*/true);
  r.h.BeginWrite({KeyOp{"t", "1"}, KeyOp{"u", "1"}}, true, false);
  r.Put("p", "1");
  r.h.AbandonPending();
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"t", "1"}, {"u", "1"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"p", "1"}}).ok);
  // Still all or nothing at that earlier cut.
  const RecoveryVerdict half = CheckRecovery(r.h, false, {{"a", "1"}, {"t", "1"}});
  REQUIRE_FALSE(half.ok);
  REQUIRE(half.property == "atomicity");
}

TEST_CASE("a write in flight follows every write acknowledged before it began", "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);
  r.Put("p", "1");  // acknowledged before t began: t follows it
  r.h.BeginWrite({KeyOp{"t", "1"}}, true, false);
  r.h.AbandonPending();
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"p", "1"}, {"t", "1"}}).ok);
  const RecoveryVerdict hole = CheckRecovery(r.h, false, {{"a", "1"}, {"t", "1"}});
  REQUIRE_FALSE(hole.ok);
  REQUIRE(hole.property == "prefix recovery");
}

TEST_CASE("a failed write precedes a write on another key that began after it returned",
          "[oracle]") {
  Recorder r;
  r.Put("a", "0", /*sync=*/true);
  const uint64_t overlapping = r.h.BeginWrite({KeyOp{"a", "2"}}, true, false);
  r.Failed({KeyOp{"a", "1"}});
  r.Put("b", "x");  // began after the failed write returned: follows it
  r.h.EndWrite(overlapping, Status::OK(), r.next_seq++);
  // The failed write may sit before b with a=2 lost, or not have happened.
  REQUIRE(CheckRecovery(r.h, false, {{"a", "1"}, {"b", "x"}}).ok);
  REQUIRE(CheckRecovery(r.h, false, {{"a", "2"}, {"b", "x"}}).ok);
  // Once a=2, ordered after b, must survive, the failed value cannot show.
  Recorder s;
  s.Put("a", "0", /*sync=*/true);
  const uint64_t synced = s.h.BeginWrite({KeyOp{"a", "2"}}, true, /*sync=*/true);
  s.Failed({KeyOp{"a", "1"}});
  s.Put("b", "x");
  s.h.EndWrite(synced, Status::OK(), s.next_seq++);
  const RecoveryVerdict lost = CheckRecovery(s.h, false, {{"a", "1"}, {"b", "x"}});
  REQUIRE_FALSE(lost.ok);
  REQUIRE(lost.property == "durability");
  REQUIRE(lost.key == "a");
}

TEST_CASE("a waiver after injected WAL damage keeps the writes logged before it", "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);  // sequence 1
  r.Put("b", "2", /*sync=*/true);  // 2
  r.Put("c", "3", /*sync=*/true);  // 3: logged at the damage
  CheckScope waived{false, /*durability=*/false, {}};
  CHECK(CheckRecovery(r.h, waived, {}).ok);  // no floor: only flushed writes
  waived.durable_below_sequence = 3;
  CHECK(CheckRecovery(r.h, waived, {{"a", "1"}, {"b", "2"}}).ok);
  const RecoveryVerdict v = CheckRecovery(r.h, waived, {{"a", "1"}});
  REQUIRE_FALSE(v.ok);
  CHECK(v.property == "durability");
  CHECK(v.key == "b");
  CHECK_FALSE(CheckRecovery(r.h, waived, {}).ok);
}

TEST_CASE("skip-any may lose each write a damaged log held on its own, and only those",
          "[oracle]") {
  Recorder r;
  r.Put("a", "1", /*sync=*/true);  // sequence 1: before the damage
  r.Put("d", "0", /*sync=*/true);  // 2
  r.Put("b", "2", /*sync=*/true);  // 3: in the damaged record
  const uint64_t batch = r.h.BeginWrite({KeyOp{"c", "3"}, KeyOp{"d", std::nullopt}}, true, true);
  r.h.EndWrite(batch, Status::OK(), r.next_seq++);  // 4: a synced batch in the damaged block
  r.Put("e", "5", /*sync=*/true);                   // 5: after the damage, in a later block
  CheckScope scope;
  scope.skippable = {SequenceRange{3, 5}};
  // b and the batch skipped, e replayed: a hole prefix recovery forbids,
  // which skip-any may leave where damage was.
  CHECK(CheckRecovery(r.h, scope, {{"a", "1"}, {"d", "0"}, {"e", "5"}}).ok);
  CHECK(CheckRecovery(r.h, scope, {{"a", "1"}, {"c", "3"}, {"e", "5"}}).ok);
  // Writes outside the damaged range are held to durability as before.
  const RecoveryVerdict lost = CheckRecovery(r.h, scope, {{"d", "0"}, {"e", "5"}});
  REQUIRE_FALSE(lost.ok);
  CHECK(lost.property == "durability");
  CHECK(lost.key == "a");
  CHECK_FALSE(CheckRecovery(r.h, scope, {{"a", "1"}, {"b", "2"}, {"d", "0"}}).ok);
  // A skipped write stays whole: its put without its delete is atomicity.
  const RecoveryVerdict torn =
      CheckRecovery(r.h, scope, {{"a", "1"}, {"c", "3"}, {"d", "0"}, {"e", "5"}});
  REQUIRE_FALSE(torn.ok);
  CHECK(torn.property == "atomicity");
  // Without the range, the hole is a failure.
  CHECK_FALSE(CheckRecovery(r.h, CheckScope{}, {{"a", "1"}, {"d", "0"}, {"e", "5"}}).ok);
}
