#include "workloads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <thread>
#include <vector>

#include "key_value_gen.h"
#include "util/random.h"

namespace shale::bench {
namespace {

class Real final : public WorkloadThreads {
 public:
  void RunAll(int n, const std::function<void(int)>& fn) override {
    std::latch ready(n);
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        ready.arrive_and_wait();
        fn(i);
      });
    }
    for (std::thread& t : threads) t.join();
  }
  double NowSeconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

struct ThreadResult {
  int64_t ops = 0;
  int64_t bytes = 0;
  int64_t found = 0;
  double start_seconds = 0;
  double finish_seconds = 0;
  Status status;
};

struct Context {
  KvStore* store;
  const BenchConfig* config;
  uint64_t seed;
  WorkloadThreads* threads;
};

using ThreadFn = std::function<void(int thread_index, ThreadResult* result)>;

// Runs fn on n threads released together; returns each thread's result.
std::vector<ThreadResult> RunThreads(const Context& ctx, int n, const ThreadFn& fn) {
  std::vector<ThreadResult> results(static_cast<size_t>(n));
  ctx.threads->RunAll(n, [&](int i) {
    ThreadResult* r = &results[static_cast<size_t>(i)];
    r->start_seconds = ctx.threads->NowSeconds();
    fn(i, r);
    r->finish_seconds = ctx.threads->NowSeconds();
  });
  return results;
}

void DoWrite(const Context& ctx, bool sequential, int tid, ThreadResult* r) {
  const BenchConfig& c = *ctx.config;
  Random rnd(ctx.seed + static_cast<uint64_t>(tid));
  ValuePool values(ctx.seed * 31 + static_cast<uint64_t>(tid), c.value_size_bytes);
  const size_t batch = static_cast<size_t>(c.batch_size);
  std::vector<KeyFormatter> keys(batch, KeyFormatter(c.key_size_bytes));
  std::vector<KvPair> pairs(batch);
  const uint64_t num = static_cast<uint64_t>(c.num);
  for (uint64_t i = 0; i < num; i += batch) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(batch, num - i));
    for (size_t j = 0; j < n; ++j) {
      const uint64_t k = sequential ? i + j : rnd.Uniform(num);
      pairs[j] = KvPair{keys[j].Format(k), values.Next()};
      r->bytes += static_cast<int64_t>(pairs[j].key.size() + pairs[j].value.size());
    }
    r->status = ctx.store->Write(std::span<const KvPair>(pairs.data(), n));
    if (!r->status.ok()) return;
    r->ops += static_cast<int64_t>(n);
    ctx.threads->ChargeOp();
  }
}

void DoReadRandom(const Context& ctx, int tid, ThreadResult* r) {
  const BenchConfig& c = *ctx.config;
  Random rnd(ctx.seed + static_cast<uint64_t>(tid));
  KeyFormatter key(c.key_size_bytes);
  std::string value;
  const int64_t reads = c.EffectiveReads();
  for (int64_t i = 0; i < reads; ++i) {
    const Slice k = key.Format(rnd.Uniform(static_cast<uint64_t>(c.num)));
    Status s = ctx.store->Get(k, &value);
    if (s.ok()) {
      ++r->found;
      r->bytes += static_cast<int64_t>(k.size() + value.size());
    } else if (!s.IsNotFound()) {
      r->status = s;
      return;
    }
    ++r->ops;
    ctx.threads->ChargeOp();
  }
}

void DoReadSeq(const Context& ctx, ThreadResult* r) {
  const int64_t reads = ctx.config->EffectiveReads();
  std::unique_ptr<KvCursor> cursor = ctx.store->NewCursor();
  for (cursor->SeekToFirst(); cursor->Valid() && r->ops < reads; cursor->Next()) {
    r->bytes += static_cast<int64_t>(cursor->key().size() + cursor->value().size());
    ++r->ops;
    ctx.threads->ChargeOp();
  }
  r->status = cursor->status();
}

// Random Puts until *stop; the writer of readwhilewriting.
void DoWriteUntil(const Context& ctx, int tid, const std::atomic<bool>* stop, ThreadResult* r) {
  const BenchConfig& c = *ctx.config;
  Random rnd(ctx.seed + static_cast<uint64_t>(tid));
  ValuePool values(ctx.seed * 31 + static_cast<uint64_t>(tid), c.value_size_bytes);
  KeyFormatter key(c.key_size_bytes);
  while (!stop->load(std::memory_order_relaxed)) {
    r->status =
        ctx.store->Put(key.Format(rnd.Uniform(static_cast<uint64_t>(c.num))), values.Next());
    if (!r->status.ok()) return;
    ++r->ops;
    ctx.threads->ChargeOp();
  }
}

std::vector<ThreadResult> RunReadWhileWriting(const Context& ctx) {
  const int readers = static_cast<int>(std::max<int64_t>(1, ctx.config->threads - 1));
  std::atomic<int> readers_left{readers};
  std::atomic<bool> stop{false};
  std::vector<ThreadResult> all = RunThreads(ctx, readers + 1, [&](int tid, ThreadResult* r) {
    if (tid == readers) return DoWriteUntil(ctx, tid, &stop, r);
    DoReadRandom(ctx, tid, r);
    if (readers_left.fetch_sub(1) == 1) stop.store(true);
  });
  Status writer_status = all.back().status;
  all.pop_back();  // report the readers only
  if (!writer_status.ok() && all[0].status.ok()) all[0].status = writer_status;
  return all;
}

std::vector<ThreadResult> RunByName(const std::string& name, const Context& ctx) {
  const int n = static_cast<int>(ctx.config->threads);
  if (name == "readwhilewriting") return RunReadWhileWriting(ctx);
  return RunThreads(ctx, n, [&](int tid, ThreadResult* r) {
    if (name == "fillseq") return DoWrite(ctx, /*sequential=*/true, tid, r);
    if (name == "fillrandom" || name == "overwrite") return DoWrite(ctx, false, tid, r);
    if (name == "readrandom") return DoReadRandom(ctx, tid, r);
    if (name == "readseq") return DoReadSeq(ctx, r);
    if (name == "compact") {
      if (tid == 0) r->status = ctx.store->CompactAll();
      r->ops = tid == 0 ? 1 : 0;
      return;
    }
    r->status = Status::InvalidArgument("unknown benchmark", name);
  });
}

BenchResult Merge(const std::string& name, const std::vector<ThreadResult>& results) {
  BenchResult out;
  out.name = name;
  out.reports_found = name == "readrandom" || name == "readwhilewriting";
  double start = results.front().start_seconds;
  double finish = results.front().finish_seconds;
  for (const ThreadResult& r : results) {
    out.ops += r.ops;
    out.bytes += r.bytes;
    out.found += r.found;
    out.thread_seconds += r.finish_seconds - r.start_seconds;
    start = std::min(start, r.start_seconds);
    finish = std::max(finish, r.finish_seconds);
    if (out.status.ok()) out.status = r.status;
  }
  out.wall_seconds = finish - start;
  return out;
}

}  // namespace

WorkloadThreads* RealThreads() {
  static auto* const threads = new Real();
  return threads;
}

BenchResult RunWorkload(const std::string& name, KvStore* store, const BenchConfig& config,
                        uint64_t seed, WorkloadThreads* threads) {
  const Context ctx{store, &config, seed, threads};
  return Merge(name, RunByName(name, ctx));
}

uint64_t BenchSeed(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ull;
  return h;
}

bool WantsFreshDb(const std::string& name) { return name == "fillseq" || name == "fillrandom"; }

}  // namespace shale::bench
