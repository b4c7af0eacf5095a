#include "db/memtable_list.h"

#include "memtable/memtable.h"
#include "util/check.h"

namespace shale {

MemTableList::~MemTableList() { SHALE_CHECK(entries_.empty()); }

void MemTableList::Add(MemTable* mem, uint64_t id) {
  SHALE_CHECK(mem != nullptr);
  SHALE_CHECK(entries_.empty() || id > entries_.back().id);
  entries_.push_back(Entry{mem, id});
}

MemTable* MemTableList::oldest() const {
  SHALE_CHECK(!entries_.empty());
  return entries_.front().mem;
}

uint64_t MemTableList::oldest_id() const {
  SHALE_CHECK(!entries_.empty());
  return entries_.front().id;
}

MemTable* MemTableList::second_oldest() const {
  return entries_.size() > 1 ? entries_[1].mem : nullptr;
}

void MemTableList::RemoveOldest() {
  SHALE_CHECK(!entries_.empty());
  MemTable* mem = entries_.front().mem;
  entries_.pop_front();
  mem->Unref();
}

void MemTableList::RefNewestFirst(std::vector<MemTable*>* out) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    it->mem->Ref();
    out->push_back(it->mem);
  }
}

void MemTableList::UnrefAll() {
  for (const Entry& e : entries_) e.mem->Unref();
  entries_.clear();
}

}  // namespace shale
