// BlockManager: the flash backend's chunk lists (free, used, bad) and its
// choice of where a file's next chunk goes.
//
//  * Free chunks are kept per parallel unit; Allocate takes the least-worn
//    free chunk (ties: the lowest number) of the unit after the one the
//    file's previous chunk used, so consecutive chunks of a file stripe
//    across the parallel units. A unit with no free chunk is skipped.
//  * Bad chunks (OFFLINE, or grown bad after a program failure) are never
//    handed out again.
//  * Erasing is queued: chunks wait in the reset queue, in the order queued,
//    until the backend's eraser takes them.
//
// Thread safety: none; the FlashFs serializes calls under its mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <utility>
#include <vector>

#include "flash/flash_format.h"
#include "shale/flash_device.h"

namespace shale::flash {

class BlockManager {
 public:
  // Loads the lists from a chunk report: FREE chunks are free, OFFLINE
  // ones bad, the rest used. planted_bugs: Options::planted_bugs.
  BlockManager(const FlashGeometry& geometry, const std::vector<ChunkDescriptor>& report,
               uint64_t planted_bugs);

  // A free chunk for a file whose previous chunk is previous (kNoChunk for
  // its first); false if none is left. The chunk becomes used.
  [[nodiscard]] bool Allocate(uint32_t previous, uint32_t* chunk);
  // Gives back a chunk Allocate returned that was never written.
  void Release(uint32_t chunk);
  // A chunk whose program failed: retired once its file lets go of it.
  void MarkGrownBad(uint32_t chunk);

  // Queues a used chunk for erasing.
  void QueueReset(uint32_t chunk);
  // The next chunk to erase, if any (it leaves the queue).
  [[nodiscard]] bool TakeReset(uint32_t* chunk);
  // The erase of chunk ended: free again (wear + 1) if ok and not grown
  // bad; otherwise bad for good.
  void ResetDone(uint32_t chunk, bool ok);
  size_t queued_resets() const { return reset_queue_.size(); }

 private:
  const FlashGeometry geometry_;
  // Per unit: (wear, chunk), least worn first.
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> free_;
  std::vector<uint32_t> wear_;
  std::set<uint32_t> bad_;
  std::set<uint32_t> grown_bad_;
  std::deque<uint32_t> reset_queue_;
  uint32_t next_unit_ = 0;  // where a file's first chunk goes: round robin
  uint64_t planted_bugs_;
};

}  // namespace shale::flash
