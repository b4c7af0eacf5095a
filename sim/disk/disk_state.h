// DiskState: everything a SimDisk knows, shared by SimDisk and the file
// handles it returns. Internal to sim/disk; the contract users see is
// sim/disk/sim_disk.h.
//
// Model:
//  * inodes: id -> Inode. An inode holds its page-cache bytes (`visible`),
//    its durable bytes, and the sector writes made since its last successful
//    sync (`pending`). Ids are never reused, so a dead handle's id can never
//    name somebody else's file.
//  * dirs: normalized path -> Dir, each with a page-cache and a durable entry
//    table. The root is "" and always present. A Dir record may outlive its
//    name (DeleteDir removes only the name); whether a directory exists is
//    decided by walking names from the root (DirVisible / DirDurable).
//  * journal: every create, rename, unlink, mkdir, rmdir and truncate not
//    yet committed, oldest first (see "Metadata" in sim_disk.h). Each one
//    already changed the page-cache tables; the durable tables get them
//    when the journal commits, or a prefix of them at a power loss.
//  * incarnation: the current "process". Handles and locks remember theirs;
//    a crash bumps it, so every older handle is dead.
//
// Thread safety: none (one simulated task runs at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "shale/slice.h"
#include "shale/status.h"
#include "sim/disk/sim_disk.h"
#include "sim/disk_context.h"

namespace shale::sim::disk_internal {

inline constexpr size_t kDirectIoAlignment = 4096;

// One pending (unsynced) write of one sector.
struct PendingSector {
  uint64_t sector = 0;
  std::string image;  // page-cache bytes of the sector after the write (short at EOF)
  // The bytes of the sector the unsynced writes changed, [dirty_begin,
  // dirty_end) within the sector. Power loss damages only these (powersafe
  // overwrite: a failed write never harms bytes it did not write).
  uint32_t dirty_begin = 0;
  uint32_t dirty_end = 0;
};

struct Inode {
  std::string visible;
  std::string durable;
  std::vector<PendingSector> pending;  // oldest first
  int open_handles = 0;                // live handles (current incarnation)
  std::set<uint64_t> unreadable;       // sticky bad sectors (freed only by a truncate)
  // Sectors a failed sync marked clean without writing them: the page cache
  // keeps their bytes, but no later sync writes them unless they are
  // written again. Cleared when the page cache is (power loss, dropped pages).
  std::set<uint64_t> clean_unwritten;
};

struct Entry {
  bool is_dir = false;
  uint64_t inode = 0;  // 0 for directories
  bool operator==(const Entry& other) const {
    return is_dir == other.is_dir && inode == other.inode;
  }
};

// One name change of one directory: `entry` set links name, unset unlinks it.
struct DirEdit {
  std::string dir;  // normalized
  std::string name;
  std::optional<Entry> entry;
};

// One metadata operation, atomic in the journal (a rename is one record with
// two edits). A truncate record sets truncate_inode (nonzero) and has no edits.
struct JournalRecord {
  std::vector<DirEdit> edits;
  uint64_t truncate_inode = 0;
  uint64_t truncate_size_bytes = 0;
};

// The journal commits by itself once it holds this many records (a real
// journal commits when full, and every few seconds).
inline constexpr size_t kMaxJournalRecords = 4096;

struct Dir {
  std::map<std::string, Entry> visible;
  std::map<std::string, Entry> durable;
};

struct PathParts {
  std::string parent;  // normalized; "" is the root
  std::string name;
};

// How one operation is run (see DiskState::RunOp).
struct OpSpec {
  const char* name = "";              // switch point and trace name
  const std::string* path = nullptr;  // for the trace and errors
  uint64_t handle_incarnation = 0;    // 0: not a handle call
  uint64_t bytes = 0;                 // folded into the trace
  // The bytes the call wrote, or read (the Slice the effect fills): their
  // Hash64 is folded into the trace, so equal trace hashes mean equal data.
  const Slice* data = nullptr;
  uint64_t latency_ns = 0;
};

class DiskState {
 public:
  DiskState(DiskContext* context, const LatencyProfile& latency);

  // Runs one call: SwitchPoint, handle liveness check, effect, Delay, Fold
  // (name, path, size, status and a hash of spec.data). An IOError is made
  // to name spec.path, as a POSIX Env reports errno. When the run keeps a
  // trace, the call is one line of it (not hashed):
  //   io t=<start ns>..<end ns> task '<task>' <call> <path> <bytes> bytes: <status>
  // <call> is spec.name without "disk." (append, sync, rename, ...), the
  // task is "" outside one, and <status> is OK or the Status's text.
  Status RunOp(const OpSpec& spec, const std::function<Status()>& effect);

  // ---- paths and names
  static std::string Normalize(const std::string& path);
  static PathParts Split(const std::string& normalized);
  static std::string Join(const std::string& dir, const std::string& name);
  bool DirVisible(const std::string& dir) const;
  bool DirDurable(const std::string& dir) const;
  // The page-cache / durable entry for a normalized path; nullptr if none.
  const Entry* FindVisible(const std::string& path) const;
  const Entry* FindDurable(const std::string& path) const;
  // The inode of a visible file, or nullptr (absent or a directory).
  Inode* VisibleFile(const std::string& path, uint64_t* id);
  uint64_t NewInode();
  // Frees the inode if no name in either view and no live handle reaches it.
  void MaybeFree(uint64_t id);
  void FreeUnreferenced();

  // ---- metadata journal (disk_journal.cc)
  // Records an operation whose page-cache effect is done; commits the
  // journal if it is full.
  void Journal(JournalRecord record);
  // Makes journal[0, count) durable, in order, and drops them from the
  // journal. REQUIRES: count <= journal.size().
  void CommitJournal(size_t count);
  // How many leading records must commit to cover every record that
  // touches directory dir (its entries, or its own name), or inode id (its
  // names, or its size): one past the last such record; 0 if none.
  size_t JournalEndForDir(const std::string& dir) const;
  size_t JournalEndForInode(uint64_t id) const;
  // A file sync made inode id's size durable: its truncate records are moot.
  void ForgetTruncates(uint64_t id);
  // Whether an uncommitted record links inode id (a power loss may keep it).
  bool JournalLinks(uint64_t id) const;

  // ---- data (page cache; the pending list records what a sync would keep)
  static void Write(Inode* inode, uint64_t offset, const Slice& data);
  // Cuts or extends the page-cache view; dirty pages past the new end are
  // discarded (they are never written back), as the kernel does.
  static void Truncate(Inode* inode, uint64_t size);
  // Makes the page-cache view durable, except clean_unwritten sectors that
  // were not written again (they keep their durable bytes, or zeros).
  static void MakeDurable(Inode* inode);
  static void DropPending(Inode* inode);
  // A failed sync that marks the dirty pages clean: they stay readable but
  // are never written back.
  static void MarkClean(Inode* inode);
  // A misdirected write (see sim_disk.h): [offset, offset+size) keeps its
  // old bytes (zeros past the end) and data is written at target instead.
  static void WriteMisdirected(Inode* inode, uint64_t offset, const Slice& data, uint64_t target);
  // IOError if [offset, offset+length) touches an unreadable sector.
  static Status CheckReadable(const Inode& inode, uint64_t offset, uint64_t length);

  // ---- latency
  uint64_t ReadLatency(uint64_t bytes) const;
  uint64_t WriteLatency(uint64_t bytes) const;
  uint64_t SyncLatency() const { return latency_.sync_ns; }
  uint64_t MetadataLatency() const { return latency_.metadata_ns; }

  static uint64_t HashString(const std::string& text);

  DiskContext* const context;
  uint64_t incarnation = 1;
  std::map<uint64_t, Inode> inodes;
  std::map<std::string, Dir> dirs;
  std::set<std::string> locks;
  std::vector<JournalRecord> journal;
  bool fsync_commits_metadata = false;
  bool switch_points = true;  // see SimDisk::set_switch_points
  std::vector<SimDisk::SurvivingSector> last_power_loss;
  SimDisk::MetadataKept last_power_loss_metadata;
  std::vector<std::string> last_power_loss_holes;

 private:
  bool Referenced(uint64_t id) const;

  const LatencyProfile latency_;
  uint64_t next_inode_ = 1;
};

// A status for calls on a handle from a crashed process.
Status DeadHandleError();

// Handle factories (sim_disk_files.cc). Each registers a live handle on the
// inode (open_handles) until it is closed or destroyed; a handle from an
// older incarnation touches nothing, not even in its destructor.
std::unique_ptr<SequentialFile> NewSequentialHandle(DiskState* state, uint64_t id,
                                                    const std::string& path, bool direct);
std::unique_ptr<RandomAccessFile> NewRandomAccessHandle(DiskState* state, uint64_t id,
                                                        const std::string& path, bool direct);
std::unique_ptr<WritableFile> NewWritableHandle(DiskState* state, uint64_t id,
                                                const std::string& path, bool direct);
std::unique_ptr<FileLock> NewLockHandle(const std::string& path, uint64_t incarnation);
// The path and incarnation of a lock made by NewLockHandle.
void LockDetails(const FileLock& lock, std::string* path, uint64_t* incarnation);

}  // namespace shale::sim::disk_internal
