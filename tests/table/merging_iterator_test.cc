#include "table/merging_iterator.h"

#include <rapidcheck.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/rc_check.h"
#include "db/dbformat.h"
#include "memtable/memtable.h"
#include "shale/comparator.h"

using namespace shale;

namespace {

using Entry = std::pair<std::string, std::string>;  // key, value

// An Iterator over a sorted vector (duplicate keys allowed, kept in order).
class VectorIterator final : public Iterator {
 public:
  explicit VectorIterator(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  bool Valid() const override { return pos_ >= 0 && pos_ < size(); }
  void SeekToFirst() override { pos_ = 0; }
  void SeekToLast() override { pos_ = size() - 1; }
  void Seek(const Slice& target) override {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), target.ToString(),
                               [](const Entry& e, const std::string& t) { return e.first < t; });
    pos_ = static_cast<int>(it - entries_.begin());
  }
  void SeekForPrev(const Slice& target) override {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), target.ToString(),
                               [](const std::string& t, const Entry& e) { return t < e.first; });
    pos_ = static_cast<int>(it - entries_.begin()) - 1;
  }
  void Next() override { pos_++; }
  void Prev() override { pos_--; }
  Slice key() const override { return entries_[static_cast<size_t>(pos_)].first; }
  Slice value() const override { return entries_[static_cast<size_t>(pos_)].second; }
  Status status() const override { return Status::OK(); }

 private:
  int size() const { return static_cast<int>(entries_.size()); }
  std::vector<Entry> entries_;
  int pos_ = -1;
};

// The model: the union sorted by (key, child, position in child), which
// std::stable_sort over children in order gives.
std::vector<Entry> SortedUnion(const std::vector<std::vector<Entry>>& children) {
  std::vector<Entry> all;
  for (const auto& c : children) all.insert(all.end(), c.begin(), c.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const Entry& a, const Entry& b) { return a.first < b.first; });
  return all;
}

std::unique_ptr<Iterator> Merge(const std::vector<std::vector<Entry>>& children) {
  std::vector<Iterator*> iters;
  for (const auto& c : children) iters.push_back(new VectorIterator(c));
  return std::unique_ptr<Iterator>(
      NewMergingIterator(BytewiseComparator(), iters.data(), static_cast<int>(iters.size())));
}

}  // namespace

TEST_CASE("merging nothing is an empty iterator", "[merging_iterator]") {
  auto it = Merge({});
  it->SeekToFirst();
  REQUIRE_FALSE(it->Valid());
  it->SeekToLast();
  REQUIRE_FALSE(it->Valid());
  REQUIRE(it->status().ok());
}

TEST_CASE("merging iterator yields the sorted union and switches direction", "[merging_iterator]") {
  auto it = Merge({{{"a", "0"}, {"d", "0"}}, {{"b", "1"}, {"d", "1"}}, {}, {{"c", "3"}}});
  std::string seen;
  for (it->SeekToFirst(); it->Valid(); it->Next())
    seen += it->key().ToString() + it->value().ToString();
  REQUIRE(seen == "a0b1c3d0d1");
  seen.clear();
  for (it->SeekToLast(); it->Valid(); it->Prev())
    seen += it->key().ToString() + it->value().ToString();
  REQUIRE(seen == "d1d0c3b1a0");

  it->Seek("c");
  REQUIRE(it->key() == Slice("c"));
  it->Prev();
  REQUIRE(it->key() == Slice("b"));
  it->Next();
  REQUIRE(it->key() == Slice("c"));
  it->Next();
  REQUIRE((it->key() == Slice("d") && it->value() == Slice("0")));
  it->Next();
  REQUIRE((it->key() == Slice("d") && it->value() == Slice("1")));
  it->Prev();
  REQUIRE((it->key() == Slice("d") && it->value() == Slice("0")));
  it->SeekForPrev("cc");
  REQUIRE(it->key() == Slice("c"));
  it->Next();
  REQUIRE(it->value() == Slice("0"));
  REQUIRE(it->status().ok());
}

TEST_CASE("merging iterator reports the first child error", "[merging_iterator]") {
  std::vector<Iterator*> iters = {new VectorIterator(std::vector<Entry>{{"a", "x"}}),
                                  NewErrorIterator(Status::IOError("disk 1")),
                                  NewErrorIterator(Status::Corruption("disk 2"))};
  std::unique_ptr<Iterator> it(NewMergingIterator(BytewiseComparator(), iters.data(), 3));
  it->SeekToFirst();
  REQUIRE(it->Valid());
  REQUIRE(it->key() == Slice("a"));
  REQUIRE(it->status().IsIOError());
}

TEST_CASE("merging memtables yields every internal key in order", "[merging_iterator]") {
  InternalKeyComparator icmp(BytewiseComparator());
  MemTable* m1 = new MemTable(icmp);
  MemTable* m2 = new MemTable(icmp);
  m1->Ref();
  m2->Ref();
  m1->Add(1, kTypeValue, "a", "1");
  m1->Add(4, kTypeValue, "b", "4");
  m2->Add(2, kTypeValue, "a", "2");
  m2->Add(3, kTypeDeletion, "b", "");
  std::vector<Iterator*> iters = {m1->NewIterator(), m2->NewIterator()};
  std::unique_ptr<Iterator> it(NewMergingIterator(&icmp, iters.data(), 2));
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    seen.push_back(ExtractUserKey(it->key()).ToString() +
                   std::to_string(ExtractSequence(it->key())));
  }
  REQUIRE(seen == std::vector<std::string>{"a2", "a1", "b4", "b3"});
  it.reset();
  m1->Unref();
  m2->Unref();
}

TEST_CASE("merging iterator equals a sorted-vector model", "[merging_iterator][rapidcheck]") {
  shale_test::FixedSeedProp(
      "random children, random moves in both directions",
      [] {
        const auto key_gen = rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'e'));
        const int n = *rc::gen::inRange(1, 20);
        std::vector<std::vector<Entry>> children(static_cast<size_t>(n));
        for (int c = 0; c < n; c++) {
          auto keys = *rc::gen::container<std::vector<std::string>>(key_gen);
          std::sort(keys.begin(), keys.end());  // duplicates inside a child are allowed
          for (size_t i = 0; i < keys.size(); i++) {
            children[static_cast<size_t>(c)].emplace_back(
                keys[i], std::to_string(c) + "." + std::to_string(i));
          }
        }
        const std::vector<Entry> model = SortedUnion(children);
        const int model_size = static_cast<int>(model.size());
        auto it = Merge(children);

        int pos = -1;  // model position; valid iff 0 <= pos < size
        const int steps = *rc::gen::inRange(1, 60);
        for (int step = 0; step < steps; step++) {
          const bool valid = pos >= 0 && pos < model_size;
          const int op = *rc::gen::inRange(0, valid ? 6 : 4);
          if (op == 0) {
            it->SeekToFirst();
            pos = 0;
          } else if (op == 1) {
            it->SeekToLast();
            pos = model_size - 1;
          } else if (op == 2) {
            const std::string t = *key_gen;
            it->Seek(t);
            pos = static_cast<int>(
                std::lower_bound(model.begin(), model.end(), t,
                                 [](const Entry& e, const std::string& k) { return e.first < k; }) -
                model.begin());
          } else if (op == 3) {
            const std::string t = *key_gen;
            it->SeekForPrev(t);
            pos = static_cast<int>(std::upper_bound(model.begin(), model.end(), t,
                                                    [](const std::string& k, const Entry& e) {
                                                      return k < e.first;
                                                    }) -
                                   model.begin()) -
                  1;
          } else if (op == 4) {
            it->Next();
            pos++;
          } else {
            it->Prev();
            pos--;
          }
          const bool expect_valid = pos >= 0 && pos < model_size;
          RC_ASSERT(it->Valid() == expect_valid);
          if (expect_valid) {
            RC_ASSERT(it->key().ToString() == model[static_cast<size_t>(pos)].first);
            RC_ASSERT(it->value().ToString() == model[static_cast<size_t>(pos)].second);
          }
          if (!expect_valid) pos = -1;  // an invalid iterator only seeks
        }
        RC_ASSERT(it->status().ok());
      },
      /*seed=*/20240611, /*max_success=*/1500);
}
