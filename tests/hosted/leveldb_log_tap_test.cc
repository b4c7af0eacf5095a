// LevelDbLogTap on hand-built log bytes: a group record is tiled with the
// leader's batch first and the writes in flight after it, and a guess
// between identical batches is corrected when the guessed write leads a
// group of its own. Each write runs on a thread of its own, as each
// simulated task does.
#include "hosted/leveldb/leveldb_log_tap.h"

#include <catch2/catch.hpp>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "util/coding.h"

namespace shale::hosted {
namespace {

// A thread that runs the calls it is given, one at a time, in order.
class Writer {
 public:
  Writer() : thread_([this] { Loop(); }) {}
  ~Writer() {
    Do([this] { done_ = true; });
    thread_.join();
  }
  void Do(std::function<void()> fn) {
    std::unique_lock<std::mutex> lock(mu_);
    job_ = std::move(fn);
    cv_.notify_all();
    cv_.wait(lock, [this] { return !job_; });
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!done_) {
      cv_.wait(lock, [this] { return static_cast<bool>(job_); });
      job_();
      job_ = nullptr;
      cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool done_ = false;
  std::thread thread_;
};

std::string Put(const std::string& key, const std::string& value) {
  std::string out(1, '\x01');
  PutLengthPrefixedSlice(&out, key);
  PutLengthPrefixedSlice(&out, value);
  return out;
}

std::string Delete(const std::string& key) {
  std::string out(1, '\x00');
  PutLengthPrefixedSlice(&out, key);
  return out;
}

// One FULL physical record holding a batch (sequence, count, records).
std::string LogRecord(uint64_t sequence, uint32_t count, const std::string& records) {
  std::string batch;
  PutFixed64(&batch, sequence);
  PutFixed32(&batch, count);
  batch += records;
  std::string header(4, '\0');  // the checksum, which the tap does not read
  header.push_back(static_cast<char>(batch.size() & 0xff));
  header.push_back(static_cast<char>(batch.size() >> 8));
  header.push_back('\x01');
  return header + batch;
}

// Three writers in flight on threads of their own: a writes `put`, b and
// c the same `del` (b began first). Each test says which group held what.
struct ThreeWriters {
  ThreeWriters() {
    a.Do([&] { tap.BeginWrite(put); });
    b.Do([&] { tap.BeginWrite(del); });
    c.Do([&] { tap.BeginWrite(del); });
  }
  void Append(const std::string& bytes) {
    tap.Appended("/db/000003.log", offset, Slice(bytes));
    offset += bytes.size();
  }
  LevelDbLogTap tap;
  Writer a, b, c;
  const std::string put = Put("k1", "v1"), del = Delete("k2");
  std::optional<uint64_t> seq_a, seq_b, seq_c;
  uint64_t offset = 0;
};

TEST_CASE_METHOD(ThreeWriters,
                 "the log tap tiles groups and corrects a guess between identical batches",
                 "[hosted][leveldb]") {
  // a leads a group holding a delete: b's or c's (the same bytes); the
  // tap guesses b, the earlier. Then b leads its own record: the guess was
  // wrong, so the first group's delete was c's.
  a.Do([&] { Append(LogRecord(10, 2, put + del)); });
  b.Do([&] { Append(LogRecord(12, 1, del)); });
  a.Do([&] { seq_a = tap.EndWrite(); });
  b.Do([&] { seq_b = tap.EndWrite(); });
  c.Do([&] { seq_c = tap.EndWrite(); });
  REQUIRE(seq_a == 10u);
  REQUIRE(seq_b == 12u);
  REQUIRE(seq_c == 11u);
  REQUIRE(tap.ambiguous() == 1);
  REQUIRE(tap.untiled() == 0);
}

TEST_CASE_METHOD(ThreeWriters,
                 "the log tap gives a guessed place to the identical write that returns first",
                 "[hosted][leveldb]") {
  // a's group holds c's delete, not b's: c returns before b leads.
  a.Do([&] { Append(LogRecord(20, 2, put + del)); });
  c.Do([&] { seq_c = tap.EndWrite(); });
  a.Do([&] { seq_a = tap.EndWrite(); });
  b.Do([&] { Append(LogRecord(22, 1, del)); });
  b.Do([&] { seq_b = tap.EndWrite(); });
  REQUIRE(seq_a == 20u);
  REQUIRE(seq_c == 21u);
  REQUIRE(seq_b == 22u);
}

TEST_CASE("the log tap leaves a write its log never held unplaced", "[hosted][leveldb]") {
  LevelDbLogTap tap;
  Writer a, b;
  std::optional<uint64_t> seq_a, seq_b = 99;
  a.Do([&] { tap.BeginWrite(Put("k", "v")); });
  b.Do([&] { tap.BeginWrite(Put("other", "w")); });
  a.Do([&] { tap.Appended("/db/000005.log", 0, Slice(LogRecord(7, 1, Put("k", "v")))); });
  a.Do([&] { seq_a = tap.EndWrite(); });
  b.Do([&] { seq_b = tap.EndWrite(); });
  REQUIRE(seq_a == 7u);
  REQUIRE_FALSE(seq_b.has_value());
}

}  // namespace
}  // namespace shale::hosted
