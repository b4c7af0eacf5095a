#include "memtable/memtable.h"

#include <cstring>

#include "memtable/arena.h"
#include "memtable/memtable_bloom.h"
#include "memtable/skiplist.h"
#include "util/check.h"
#include "util/coding.h"
#include "util/mutexlock.h"

namespace shale {
namespace {

// Decodes the length-prefixed internal key at the start of an entry.
// REQUIRES: entry was written by MemTable::Add (the prefix is well formed).
inline Slice DecodeEntryKey(const char* entry) {
  const uint8_t first = static_cast<uint8_t>(entry[0]);
  if (first < 0x80) return Slice(entry + 1, first);  // keys under 128 bytes
  uint32_t len = 0;
  const char* p = GetVarint32Ptr(entry, entry + 5, &len);
  SHALE_CHECK(p != nullptr);
  return Slice(p, len);
}

// Decodes the value that follows the key slice `key` of an entry.
inline Slice DecodeEntryValue(const Slice& key) {
  const char* p = key.data() + key.size();
  uint32_t len = 0;
  p = GetVarint32Ptr(p, p + 5, &len);
  SHALE_CHECK(p != nullptr);
  return Slice(p, len);
}

// Orders arena entries by their internal keys.
struct EntryComparator {
  const InternalKeyComparator* icmp;  // final: its Compare is a direct call
  int operator()(const char* a, const char* b) const { return CompareDecoded(a, Decode(b)); }
  // A search target decoded once per search (see SkipList::kCanDecode).
  Slice Decode(const char* entry) const { return DecodeEntryKey(entry); }
  int CompareDecoded(const char* a, const Slice& b_key) const {
    return icmp->Compare(DecodeEntryKey(a), b_key);
  }
};

using Table = SkipList<const char*, EntryComparator>;

// Bytes of an encoded entry (see memtable.h).
inline size_t EntryBytes(const Slice& key, const Slice& value) {
  const size_t ikey_bytes = key.size() + kInternalKeyTrailerBytes;
  return static_cast<size_t>(VarintLength(ikey_bytes)) + ikey_bytes +
         static_cast<size_t>(VarintLength(value.size())) + value.size();
}

// Writes the entry for (key, seq, type, value) at entry.
// REQUIRES: entry has EntryBytes(key, value) bytes.
inline void EncodeEntry(char* entry, size_t entry_bytes, SequenceNumber seq, ValueType type,
                        const Slice& key, const Slice& value) {
  const size_t ikey_bytes = key.size() + kInternalKeyTrailerBytes;
  char* p = EncodeVarint32(entry, static_cast<uint32_t>(ikey_bytes));
  std::memcpy(p, key.data(), key.size());
  p += key.size();
  EncodeFixed64(p, PackSequenceAndType(seq, type));
  p += kInternalKeyTrailerBytes;
  p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
  SHALE_CHECK(p + value.size() == entry + entry_bytes);
  (void)entry_bytes;
}

}  // namespace

struct MemTable::Rep {
  Rep(const InternalKeyComparator& cmp, const MemTableOptions& options)
      : icmp(cmp),
        arena(options.arena_block_bytes, options.huge_page_advisor),
        table(EntryComparator{&icmp}, &arena) {
    if (options.bloom_bytes > 0) {
      char* memory = arena.AllocateAligned(MemTableBloom::MemoryBytes(options.bloom_bytes));
      bloom = std::make_unique<MemTableBloom>(options.bloom_bytes, memory);
    }
  }

  const InternalKeyComparator icmp;
  Arena arena;
  Table table;
  std::unique_ptr<MemTableBloom> bloom;  // words in arena; nullptr: none
};

namespace {

// Iterates the skiplist, yielding internal keys. Seek targets are internal
// keys; they are re-encoded with a length prefix into seek_buf_ (a member,
// so a short target costs no allocation).
class MemTableIterator final : public Iterator {
 public:
  explicit MemTableIterator(const Table* table) : iter_(table) {}

  bool Valid() const override { return iter_.Valid(); }
  void SeekToFirst() override { iter_.SeekToFirst(); }
  void SeekToLast() override { iter_.SeekToLast(); }
  void Seek(const Slice& target) override { iter_.Seek(EncodeSeekKey(target)); }
  void SeekForPrev(const Slice& target) override { iter_.SeekForPrev(EncodeSeekKey(target)); }
  void Next() override { iter_.Next(); }
  void Prev() override { iter_.Prev(); }
  Slice key() const override { return DecodeEntryKey(iter_.key()); }
  Slice value() const override { return DecodeEntryValue(key()); }
  Status status() const override { return Status::OK(); }

 private:
  static constexpr size_t kInlineBytes = 64;

  const char* EncodeSeekKey(const Slice& target) {
    SHALE_CHECK(target.size() >= kInternalKeyTrailerBytes);
    const size_t needed = target.size() + 5;
    char* dst = seek_inline_;
    if (needed > kInlineBytes) {
      seek_heap_.resize(needed);
      dst = seek_heap_.data();
    }
    char* p = EncodeVarint32(dst, static_cast<uint32_t>(target.size()));
    std::memcpy(p, target.data(), target.size());
    return dst;
  }

  Table::Iterator iter_;
  char seek_inline_[kInlineBytes];
  std::string seek_heap_;  // for targets too long for seek_inline_
};

}  // namespace

MemTable::MemTable(const InternalKeyComparator& comparator, const MemTableOptions& options)
    : rep_(std::make_unique<Rep>(comparator, options)), concurrent_mu_(options.concurrent_mu) {}

MemTable::~MemTable() { SHALE_CHECK(refs_.load(std::memory_order_relaxed) == 0); }

void MemTable::Unref() {
  const int before = refs_.fetch_sub(1, std::memory_order_acq_rel);
  SHALE_CHECK(before >= 1);
  if (before == 1) delete this;
}

size_t MemTable::ApproximateMemoryUsage() const { return rep_->arena.MemoryUsage(); }

Iterator* MemTable::NewIterator() { return new MemTableIterator(&rep_->table); }

void MemTable::Add(SequenceNumber seq, ValueType type, const Slice& key, const Slice& value) {
  SHALE_CHECK(seq <= kMaxSequenceNumber);
  SHALE_CHECK(type == kTypeValue || type == kTypeDeletion);
  const size_t entry_bytes = EntryBytes(key, value);
  char* const entry = rep_->table.AllocatePayload(entry_bytes);
  EncodeEntry(entry, entry_bytes, seq, type, key, value);
  if (rep_->bloom != nullptr) rep_->bloom->Add(key);  // before the entry is reachable
  rep_->table.InsertPayload(entry);
  CountEntry(seq, type);
}

void MemTable::AddConcurrently(SequenceNumber seq, ValueType type, const Slice& key,
                               const Slice& value) {
  SHALE_CHECK(concurrent_mu_ != nullptr);
  SHALE_CHECK(seq <= kMaxSequenceNumber);
  SHALE_CHECK(type == kTypeValue || type == kTypeDeletion);
  const size_t entry_bytes = EntryBytes(key, value);
  Table::Reservation reserved;
  {
    MutexLock lock(concurrent_mu_);  // the arena and the height draw only
    reserved = rep_->table.ReserveNode(entry_bytes);
  }
  EncodeEntry(reserved.payload, entry_bytes, seq, type, key, value);
  if (rep_->bloom != nullptr) rep_->bloom->AddConcurrently(key);  // before the entry is reachable
  rep_->table.InsertConcurrently(reserved, reserved.payload);
  CountEntry(seq, type);
}

void MemTable::CountEntry(SequenceNumber seq, ValueType type) {
  num_entries_.fetch_add(1, std::memory_order_relaxed);
  if (type == kTypeDeletion) num_deletes_.fetch_add(1, std::memory_order_relaxed);
  // CAS-min: a concurrent writer with a smaller seq may win; then stop.
  SequenceNumber first = first_seq_.load(std::memory_order_relaxed);
  while (seq < first && !first_seq_.compare_exchange_weak(first, seq, std::memory_order_relaxed)) {
  }
  SHALE_CHECK(first_seq_.load(std::memory_order_relaxed) <= seq);
}

bool MemTable::Get(const LookupKey& key, std::string* value, Status* s) {
  if (rep_->bloom != nullptr && !rep_->bloom->MayContain(key.user_key())) return false;
  Table::Iterator iter(&rep_->table);
  iter.Seek(key.memtable_key().data());
  if (!iter.Valid()) return false;
  // The seek key sorts before every entry of the same user key with a
  // sequence <= the snapshot, so the first hit is the newest visible one.
  const Slice entry_key = DecodeEntryKey(iter.key());
  const Comparator* ucmp = rep_->icmp.user_comparator();
  if (ucmp->Compare(ExtractUserKey(entry_key), key.user_key()) != 0) return false;
  SHALE_CHECK(ExtractSequence(entry_key) <= ExtractSequence(key.internal_key()));
  const ValueType type = static_cast<ValueType>(ExtractTrailer(entry_key) & 0xff);
  if (type == kTypeValue) {
    const Slice v = DecodeEntryValue(entry_key);
    value->assign(v.data(), v.size());
    *s = Status::OK();
  } else {
    SHALE_CHECK(type == kTypeDeletion);
    *s = Status::NotFound();
  }
  return true;
}

}  // namespace shale
