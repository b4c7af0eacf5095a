// The guard every ForeignSync model takes while it changes its maps.
//
// Changing a map allocates and frees, and an allocator may take pthread
// mutexes of its own. The interposer routes such a call by looking into
// the maps (does the simulation know this mutex?), which must never happen
// in the middle of a rehash: while a guard is alive on a thread,
// ForeignSync::ForThisThread answers nullptr there, so the allocator's
// calls go on to the C library.
//
// Thread safety: the count is per thread.
#pragma once

namespace shale::sim {

class UpdatingForeignMaps {
 public:
  UpdatingForeignMaps();
  ~UpdatingForeignMaps();
  UpdatingForeignMaps(const UpdatingForeignMaps&) = delete;
  UpdatingForeignMaps& operator=(const UpdatingForeignMaps&) = delete;

  // Whether a guard is alive on the calling thread.
  static bool Active();
};

}  // namespace shale::sim
