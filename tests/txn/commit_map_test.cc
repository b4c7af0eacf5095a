// CommitMap: a commit is final for compaction only once its marker's WAL is
// closed (and so synced); readers see it at once. Were compaction to trust
// a commit whose marker a power loss can still take, it would drop the
// version under data that recovery then finds prepared again.
#include <catch2/catch.hpp>

#include "shale/env.h"
#include "txn/commit_map.h"

using shale::CommitMap;
using shale::kMaxSequenceNumber;

TEST_CASE("a commit whose marker is in the live WAL is not final for compaction",
          "[txn][commit-map]") {
  CommitMap map(shale::Env::Default()->runtime());
  map.AddPrepared(10, 12);
  REQUIRE(map.CommitSequence(11, 100, /*live_log=*/7) == kMaxSequenceNumber);  // prepared
  map.AddCommitted(10, 15, /*marker_log=*/7);
  REQUIRE(map.IsVisible(11, 15));  // readers: committed now
  REQUIRE(map.CommitSequence(11, 100, /*live_log=*/7) == kMaxSequenceNumber);
  REQUIRE(map.CommitSequence(11, 100, CommitMap::kAnyLog) == 15);
  REQUIRE(map.CommitSequence(11, 100, /*live_log=*/8) == 15);  // WAL 7 closed
  // Prune keeps it while its marker may be lost, however old the commit.
  map.Prune(100, /*live_log=*/7);
  REQUIRE(map.CommitSequence(11, 100, /*live_log=*/7) == kMaxSequenceNumber);
  map.Prune(100, /*live_log=*/8);
  REQUIRE(map.CommitSequence(11, 100, /*live_log=*/8) == 11);  // dropped: committed at itself
  // A recovered commit is durable from the start.
  map.AddPrepared(20, 21);
  map.AddCommitted(20, 22, CommitMap::kDurable);
  REQUIRE(map.CommitSequence(20, 100, /*live_log=*/1) == 22);
}
