// OneCutExplains: one scan's values and passed-over keys must fit one
// sequence; indeterminate writes and unknown visibility never make it fail.
#include "scenarios/oracle/one_cut.h"

#include <catch2/catch.hpp>

namespace shale::scenario {
namespace {

// Writes batches with increasing sequences.
struct Writer {
  explicit Writer(ReadVisibility visibility = ReadVisibility::kWholeBatch)
      : h(State{{"a", "0"}, {"b", "0"}, {"c", "0"}}, visibility) {}
  History h;
  uint64_t next_seq = 10;
  uint64_t Acked(std::vector<KeyOp> ops, uint64_t visible_at = 0) {
    const uint64_t id = h.BeginWrite(std::move(ops), true, false);
    h.EndWrite(id, Status::OK(), next_seq, visible_at);
    next_seq += 10;
    return id;
  }
  bool Explains(std::vector<KeyObservation> observed, std::string* key = nullptr) {
    std::string unused;
    return OneCutExplains(h, observed, key == nullptr ? &unused : key);
  }
};

}  // namespace

TEST_CASE("a scan before, after or between batches fits one cut", "[oracle]") {
  Writer w;
  w.Acked({KeyOp{"a", "1"}, KeyOp{"b", "1"}});
  w.Acked({KeyOp{"b", "2"}, KeyOp{"c", std::nullopt}});
  REQUIRE(w.Explains({{"a", "0"}, {"b", "0"}, {"c", "0"}}));
  REQUIRE(w.Explains({{"a", "1"}, {"b", "1"}, {"c", "0"}}));
  REQUIRE(w.Explains({{"a", "1"}, {"b", "2"}, {"c", std::nullopt}}));
}

TEST_CASE("a scan that saw part of an acknowledged batch fits no cut", "[oracle]") {
  Writer w;
  w.Acked({KeyOp{"a", "1"}, KeyOp{"b", "1"}});
  std::string key;
  REQUIRE_FALSE(w.Explains({{"a", "1"}, {"b", "0"}}, &key));
  REQUIRE((key == "a" || key == "b"));
  // A delete is evidence too: "c" passed over, "a" from before the batch.
  w.Acked({KeyOp{"a", "2"}, KeyOp{"c", std::nullopt}});
  REQUIRE_FALSE(w.Explains({{"a", "1"}, {"c", std::nullopt}}));
  REQUIRE(w.Explains({{"a", "2"}, {"c", std::nullopt}}));
}

TEST_CASE("a scan that saw part of a pending batch fits no cut", "[oracle]") {
  Writer w;
  w.Acked({KeyOp{"b", "1"}});
  w.h.BeginWrite({KeyOp{"a", "2"}, KeyOp{"b", "2"}}, true, false);
  // "a" shows the pending batch, "b" a value acknowledged before it began.
  std::string key;
  REQUIRE_FALSE(w.Explains({{"a", "2"}, {"b", "1"}}, &key));
  REQUIRE(key == "b");
  REQUIRE(w.Explains({{"a", "2"}, {"b", "2"}}));
  REQUIRE(w.Explains({{"a", "0"}, {"b", "1"}}));
}

TEST_CASE("a write concurrent with a pending batch may still show", "[oracle]") {
  Writer w;
  const uint64_t pending = w.h.BeginWrite({KeyOp{"a", "2"}, KeyOp{"b", "2"}}, true, false);
  // Began before the pending batch ended: it may be ordered after it.
  w.Acked({KeyOp{"b", "3"}});
  REQUIRE(w.Explains({{"a", "2"}, {"b", "3"}}));
  w.h.EndWrite(pending, Status::IOError("injected"), 0);
  REQUIRE(w.Explains({{"a", "2"}, {"b", "3"}}));
}

TEST_CASE("an indeterminate write's value constrains nothing", "[oracle]") {
  Writer w;
  const uint64_t failed = w.h.BeginWrite({KeyOp{"a", "9"}}, true, false);
  w.h.EndWrite(failed, Status::IOError("injected"), 0);
  w.Acked({KeyOp{"b", "1"}, KeyOp{"c", "1"}});
  REQUIRE(w.Explains({{"a", "9"}, {"b", "1"}, {"c", "1"}}));
  REQUIRE(w.Explains({{"a", "9"}, {"b", "0"}, {"c", "0"}}));
}

TEST_CASE("per-key visibility and writes published later are not judged", "[oracle]") {
  Writer per_key(ReadVisibility::kPerKey);
  per_key.Acked({KeyOp{"a", "1"}, KeyOp{"b", "1"}});
  REQUIRE(per_key.Explains({{"a", "1"}, {"b", "0"}}));
  // Two write queues: a plain write (no visible_at) is seen from a
  // sequence not reported, so its keys constrain nothing.
  Writer later(ReadVisibility::kWholeBatchPublishedLater);
  later.Acked({KeyOp{"a", "1"}});
  later.Acked({KeyOp{"a", "2"}, KeyOp{"b", "2"}}, /*visible_at=*/55);
  later.Acked({KeyOp{"b", "3"}});
  REQUIRE(later.Explains({{"a", "1"}, {"b", "3"}}));
  // A transaction's commit sequence (visible_at) is known and binds.
  later.Acked({KeyOp{"x", "1"}, KeyOp{"y", "1"}}, /*visible_at=*/90);
  REQUIRE_FALSE(later.Explains({{"x", "1"}, {"y", std::nullopt}}));
  REQUIRE(later.Explains({{"x", "1"}, {"y", "1"}}));
}

}  // namespace shale::scenario
