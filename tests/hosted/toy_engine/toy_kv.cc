// ToyKv: see toy_kv.h. Records, in the log and the table alike, are
// "<key length> <value length>\n<key><value>"; a torn last record ends
// recovery's reading of the log.
#include "toy_kv.h"

#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

namespace toykv {

namespace {

std::string Record(const std::string& key, const std::string& value) {
  return std::to_string(key.size()) + " " + std::to_string(value.size()) + "\n" + key + value;
}

// Reads records from data into *map until data ends or a record is torn.
void ReadRecords(const std::string& data, std::map<std::string, std::string>* map) {
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t newline = data.find('\n', pos);
    if (newline == std::string::npos) return;
    size_t key_bytes = 0, value_bytes = 0;
    if (std::sscanf(data.c_str() + pos, "%zu %zu", &key_bytes, &value_bytes) != 2) return;
    if (newline + 1 + key_bytes + value_bytes > data.size()) return;
    (*map)[data.substr(newline + 1, key_bytes)] = data.substr(newline + 1 + key_bytes, value_bytes);
    pos = newline + 1 + key_bytes + value_bytes;
  }
}

}  // namespace

struct Store::State {
  Env* env = nullptr;
  std::string dir;
  std::mutex mu;
  std::condition_variable work;     // the flusher waits for a full log or the end
  std::condition_variable flushed;  // the destructor waits for the flusher to stop
  std::map<std::string, std::string> map;
  std::unique_ptr<File> log;
  uint64_t log_bytes = 0;
  uint64_t flushes = 0;
  bool stopping = false;
  bool flusher_done = false;

  std::string Path(const char* name) const { return dir + "/" + name; }

  // REQUIRES: mu held. Writes the map as a table and starts a new log.
  bool Flush() {
    std::string table;
    for (const auto& [key, value] : map) table += Record(key, value);
    std::unique_ptr<File> tmp = env->NewFile(Path("table.tmp"));
    if (tmp == nullptr || !tmp->Append(table) || !tmp->Sync()) return false;
    tmp.reset();
    if (!env->Rename(Path("table.tmp"), Path("table")) || !env->SyncDir(dir)) return false;
    log = env->NewFile(Path("log"));
    log_bytes = 0;
    flushes++;
    return log != nullptr && env->SyncDir(dir);
  }

  void FlusherMain() {
    std::unique_lock<std::mutex> lock(mu);
    while (!stopping) {
      if (log_bytes < Store::kFlushAfterBytes) {
        work.wait(lock);
        continue;
      }
      if (!Flush()) break;  // the log stays as it is
    }
    flusher_done = true;
    flushed.notify_all();
  }
};

Store::Store(std::unique_ptr<State> state) : state_(std::move(state)) {}

std::unique_ptr<Store> Store::Open(Env* env, const std::string& dir, std::string* error) {
  auto state = std::make_unique<State>();
  state->env = env;
  state->dir = dir;
  std::string data;
  if (env->ReadFile(state->Path("table"), &data)) ReadRecords(data, &state->map);
  if (env->ReadFile(state->Path("log"), &data)) ReadRecords(data, &state->map);
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->Flush()) {
      *error = "cannot write the recovered table";
      return nullptr;
    }
  }
  State* raw = state.get();
  env->StartThread([raw] { raw->FlusherMain(); });
  return std::unique_ptr<Store>(new Store(std::move(state)));
}

Store::~Store() {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->stopping = true;
  state_->work.notify_all();
  while (!state_->flusher_done) state_->flushed.wait(lock);
}

bool Store::Put(const std::string& key, const std::string& value, bool sync) {
  std::lock_guard<std::mutex> lock(state_->mu);
  const std::string record = Record(key, value);
  if (state_->log == nullptr || !state_->log->Append(record)) return false;
  if (sync && !state_->log->Sync()) return false;
  state_->map[key] = value;
  state_->log_bytes += record.size();
  if (state_->log_bytes >= kFlushAfterBytes) state_->work.notify_one();
  return true;
}

bool Store::Get(const std::string& key, std::string* value) {
  std::lock_guard<std::mutex> lock(state_->mu);
  const auto it = state_->map.find(key);
  if (it == state_->map.end()) return false;
  *value = it->second;
  return true;
}

uint64_t Store::flushes() {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->flushes;
}

}  // namespace toykv
