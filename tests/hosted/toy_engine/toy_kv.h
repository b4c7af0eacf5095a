// ToyKv: a small key-value engine written here only to be hosted, the way
// an engine Shale did not write is (docs/hosting.md). It is built as a
// shared library of its own (libshale_toy_kv.so), reaches files, threads
// and time only through its own LevelDB-style Env, and synchronizes with
// std::mutex and std::condition_variable, whose pthread calls the
// interposer answers from the simulation once the library is registered.
//
// The engine: a map in memory; every write appended to a log (synced for a
// sync write); a background thread that, once the log holds
// kFlushAfterBytes, writes the map to a table file (written whole, synced,
// renamed into place, its directory synced), then starts a new log.
// Recovery reads the table, then the log.
//
// Thread safety: Store is safe to use from many threads. Env is called
// from the caller's threads and the flusher.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace toykv {

class File {
 public:
  virtual ~File() = default;
  // False on an I/O error.
  virtual bool Append(const std::string& data) = 0;
  virtual bool Sync() = 0;
};

class Env {
 public:
  virtual ~Env() = default;
  // A new empty file at path (an existing one is replaced); nullptr on error.
  virtual std::unique_ptr<File> NewFile(const std::string& path) = 0;
  // The whole file; false if it does not exist or cannot be read.
  virtual bool ReadFile(const std::string& path, std::string* data) = 0;
  virtual bool Rename(const std::string& from, const std::string& to) = 0;
  virtual bool SyncDir(const std::string& dir) = 0;
  // Runs body on a thread of its own; the engine waits for it to finish
  // before it lets go of what body uses.
  virtual void StartThread(std::function<void()> body) = 0;
};

class Store {
 public:
  // The log size at which the flusher writes a table.
  static constexpr uint64_t kFlushAfterBytes = 4096;

  // Opens (recovering) the store in dir; nullptr with *error on failure.
  static std::unique_ptr<Store> Open(Env* env, const std::string& dir, std::string* error);
  // Stops the flusher and waits until it has.
  ~Store();

  // False on an I/O error (the write may or may not survive a crash).
  bool Put(const std::string& key, const std::string& value, bool sync);
  // False if key is absent.
  bool Get(const std::string& key, std::string* value);
  // Tables written so far by this Store.
  uint64_t flushes();

 private:
  struct State;
  explicit Store(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace toykv
