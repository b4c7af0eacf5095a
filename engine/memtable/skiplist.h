// SkipList: an ordered set of keys in arena-allocated nodes.
//
// Key is a small copyable value (the memtable uses `const char*` pointing at
// an arena entry); Cmp is a functor `int operator()(const Key&, const Key&)`
// returning <0, 0, >0. Keys are never removed or changed.
//
// Structure: at most kMaxHeight levels; a node reaches level i+1 with
// probability 1/kBranching. Heights come from a shale::Random with a fixed
// seed, so the same insert sequence always builds the same structure.
//
// Ownership: nodes live in the Arena passed to the constructor, which must
// outlive the list; the list owns nothing else.
// Thread safety: two write modes, never mixed on one list at the same time.
//  * Single writer: Insert, or AllocatePayload + InsertPayload, one thread at
//    a time (external synchronization).
//  * Concurrent writers: ReserveNode (under a lock the caller holds, because
//    the arena and the height generator are single-threaded), then
//    InsertConcurrently (no lock: it links the node with compare-exchange and
//    may run on any number of threads at once).
// The single writer remembers where its last insert went (the splice: the
// nodes before and after it at every level), so a key that lands in the same
// gap, as each key of an ascending run does, is linked without a search.
// Readers need no lock in either mode and may run concurrently with writers:
// a node is fully initialized before it is published with a release store
// (or a release compare-exchange), and readers follow links with acquire
// loads. Both modes link a node bottom-up, so a node reachable at level i is
// already linked at every level below i.
#pragma once

#include <atomic>
#include <cstdint>
#include <new>

#include "memtable/arena.h"
#include "util/check.h"
#include "util/random.h"

namespace shale {

template <typename Key, class Cmp>
class SkipList {
 private:
  struct Node;

 public:
  static constexpr int kMaxHeight = 12;
  static constexpr int kBranching = 4;
  static constexpr uint64_t kHeightSeed = 0x5ca1ab1e;

  // REQUIRES: arena outlives the list.
  SkipList(Cmp cmp, Arena* arena);
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // REQUIRES: no key comparing equal to key is in the list; one writer.
  void Insert(const Key& key);

  // Two-step insert that puts a key's bytes right after its node, so a
  // search touches one cache line per node instead of two:
  //   char* p = list.AllocatePayload(n);  /* fill p[0..n) */  list.InsertPayload(p);
  // REQUIRES: one writer; no other Allocate/Insert call between the two;
  // Key is constructible from the payload pointer.
  char* AllocatePayload(size_t payload_bytes);
  void InsertPayload(const Key& key);

  // A node reserved by ReserveNode, not yet in the list.
  struct Reservation {
    char* node_mem = nullptr;  // aligned room for the node's links
    char* payload = nullptr;   // payload_bytes for the caller, right after the node
    int height = 0;            // levels the node will be linked at
  };
  // Concurrent insert, step 1: draws a height and allocates a node with
  // payload_bytes of caller memory after it (payload_bytes may be 0).
  // REQUIRES: the caller holds a lock that every ReserveNode caller on this
  // list holds (it touches the arena, the height generator and the single
  // writer's splice, as do the single-writer calls, which must not run
  // concurrently).
  [[nodiscard]] Reservation ReserveNode(size_t payload_bytes);
  // Concurrent insert, step 2: links the reserved node holding key. Thread
  // safe with other InsertConcurrently calls and with readers; needs no lock.
  // REQUIRES: r came from ReserveNode and is inserted once; no key comparing
  // equal to key is in the list or being inserted; no single-writer call
  // runs concurrently.
  void InsertConcurrently(const Reservation& r, const Key& key);
  bool Contains(const Key& key) const;

  // A cursor over the list. Stays valid while the list exists; sees every
  // node published before each step.
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list), node_(nullptr) {}
    bool Valid() const { return node_ != nullptr; }
    // REQUIRES: Valid()
    const Key& key() const {
      SHALE_CHECK(Valid());
      return node_->key;
    }
    // REQUIRES: Valid()
    void Next() {
      SHALE_CHECK(Valid());
      node_ = node_->Next(0);
    }
    // REQUIRES: Valid(). No back links: searches for the last node < key().
    void Prev() {
      SHALE_CHECK(Valid());
      node_ = list_->FindLessThan(node_->key);
      if (node_ == list_->head_) node_ = nullptr;
    }
    // First node with key >= target.
    void Seek(const Key& target) { node_ = list_->FindGreaterOrEqual(target, nullptr); }
    // Last node with key <= target.
    void SeekForPrev(const Key& target) {
      Seek(target);
      if (!Valid()) {
        SeekToLast();
      } else if (list_->cmp_(node_->key, target) != 0) {
        Prev();
      }
    }
    void SeekToFirst() { node_ = list_->head_->Next(0); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    const Node* node_;
  };

 private:
  int GetMaxHeight() const { return max_height_.load(std::memory_order_relaxed); }
  int RandomHeight();
  bool KeyIsAfterNode(const Key& key, const Node* n) const {
    return n != nullptr && cmp_(n->key, key) < 0;
  }
  // With a comparator that can pre-decode a search key (Cmp::Decode and
  // Cmp::CompareDecoded), searches decode the target once, not per node.
  template <typename Decoded>
  bool DecodedKeyIsAfterNode(const Decoded& key, const Node* n) const {
    return n != nullptr && cmp_.CompareDecoded(n->key, key) < 0;
  }
  static constexpr bool kCanDecode = requires(const Cmp& c, const Key& k) {
    c.CompareDecoded(k, c.Decode(k));
  };
  Node* NewNode(const Key& key, int height);
  // Draws a height and allocates a node with payload room (ReserveNode
  // without forgetting the splice).
  Reservation AllocateNode(size_t payload_bytes);
  // True if the remembered splice brackets key at the bottom level (so at
  // every level: a higher level's neighbours lie at or beyond the bottom's).
  bool SpliceBrackets(const Key& key) const {
    if (splice_height_ == 0) return false;
    const Node* prev = splice_prev_[0];
    const Node* next = splice_next_[0];
    return (prev == head_ || cmp_(prev->key, key) < 0) &&
           (next == nullptr || cmp_(key, next->key) < 0);
  }
  static size_t NodeBytes(int height) {
    return sizeof(Node) + sizeof(std::atomic<Node*>) * static_cast<size_t>(height - 1);
  }
  // Constructs a node of the given height at mem. REQUIRES: NodeBytes(height) aligned bytes.
  static Node* ConstructNode(char* mem, const Key& key, int height);
  // Links x (of the given height) in. REQUIRES: key(x) is not in the list.
  void LinkNode(Node* x, int height);
  // As LinkNode, safe against other LinkNodeConcurrently calls.
  void LinkNodeConcurrently(Node* x, int height);
  // Raises max_height_ to at least height (a CAS loop; never lowers it).
  void RaiseMaxHeight(int height);
  // Walks level `level` forward from before (a node < key linked at that
  // level, or head_) to the splice for key: *prev < key <= *next (or
  // *next == nullptr).
  void FindSpliceForLevel(const Key& key, Node* before, int level, Node** prev, Node** next) const;
  // First node >= key, or nullptr. Fills prev[level] with the last node <
  // key at each level if prev is non-null.
  Node* FindGreaterOrEqual(const Key& key, Node** prev) const;
  // Last node < key, or head_.
  Node* FindLessThan(const Key& key) const;
  // Last node, or head_ if empty.
  Node* FindLast() const;

  const Cmp cmp_;
  Arena* const arena_;
  Node* const head_;
  std::atomic<int> max_height_{1};  // readers may see a stale height: harmless
  Random rnd_{kHeightSeed};         // writer only
  // Between AllocatePayload and InsertPayload (writer only).
  char* pending_node_ = nullptr;
  int pending_height_ = 0;
  // The single writer's last splice: at each level below splice_height_,
  // splice_prev_ < the last key inserted <= ... and splice_prev_'s next is
  // splice_next_ (nullptr: the end). splice_height_ == 0: none remembered
  // (a concurrent insert may have changed the links since).
  Node* splice_prev_[kMaxHeight] = {};
  Node* splice_next_[kMaxHeight] = {};
  int splice_height_ = 0;
};

template <typename Key, class Cmp>
struct SkipList<Key, Cmp>::Node {
  explicit Node(const Key& k) : key(k) {}

  Node* Next(int level) const {
    SHALE_CHECK(level >= 0);
    return next_[level].load(std::memory_order_acquire);
  }
  void SetNext(int level, Node* x) {
    SHALE_CHECK(level >= 0);
    next_[level].store(x, std::memory_order_release);
  }
  Node* NoBarrierNext(int level) const { return next_[level].load(std::memory_order_relaxed); }
  // Replaces the link expected with x; on success publishes x (release).
  // Returns false, changing nothing, if the link is no longer expected.
  bool CasNext(int level, Node* expected, Node* x) {
    SHALE_CHECK(level >= 0);
    return next_[level].compare_exchange_strong(expected, x, std::memory_order_release,
                                                std::memory_order_relaxed);
  }
  void NoBarrierSetNext(int level, Node* x) { next_[level].store(x, std::memory_order_relaxed); }

  const Key key;
  // The node is allocated with room for `height` links; next_[0] is the
  // bottom level. Declared with one element, indexed up to height-1.
  std::atomic<Node*> next_[1];
};

template <typename Key, class Cmp>
SkipList<Key, Cmp>::SkipList(Cmp cmp, Arena* arena)
    : cmp_(cmp), arena_(arena), head_(NewNode(Key(), kMaxHeight)) {
  for (int i = 0; i < kMaxHeight; i++) head_->NoBarrierSetNext(i, nullptr);
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::NewNode(const Key& key, int height) {
  SHALE_CHECK(height >= 1 && height <= kMaxHeight);
  return ConstructNode(arena_->AllocateAligned(NodeBytes(height)), key, height);
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::ConstructNode(char* mem, const Key& key,
                                                                     int height) {
  Node* node = new (mem) Node(key);
  // Construct the links beyond the declared one in place.
  std::atomic<Node*>* links = node->next_;
  for (int i = 1; i < height; i++) new (&links[i]) std::atomic<Node*>(nullptr);
  return node;
}

template <typename Key, class Cmp>
int SkipList<Key, Cmp>::RandomHeight() {
  int height = 1;
  while (height < kMaxHeight && rnd_.OneIn(kBranching)) height++;
  SHALE_CHECK(height >= 1 && height <= kMaxHeight);
  return height;
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::FindGreaterOrEqual(const Key& key,
                                                                          Node** prev) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  Node* last_checked = nullptr;  // saves re-comparing the same node one level down
  const auto decoded = [&] {
    if constexpr (kCanDecode) {
      return cmp_.Decode(key);
    } else {
      return 0;
    }
  }();
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && next != last_checked) {
      // The node's key may run onto the following cache line; fetch both
      // lines at once, and the candidate one level down, while comparing.
      __builtin_prefetch(reinterpret_cast<const char*>(next) + 63);
      if (level > 0) {
        Node* down = x->NoBarrierNext(level - 1);
        if (down != next && down != nullptr) __builtin_prefetch(down);
      }
    }
    bool after;
    if constexpr (kCanDecode) {
      after = next != last_checked && DecodedKeyIsAfterNode(decoded, next);
    } else {
      (void)decoded;
      after = next != last_checked && KeyIsAfterNode(key, next);
    }
    if (after) {
      x = next;
      continue;
    }
    if (prev != nullptr) prev[level] = x;
    if (level == 0) return next;
    last_checked = next;
    level--;
  }
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::FindLessThan(const Key& key) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    SHALE_CHECK(x == head_ || cmp_(x->key, key) < 0);
    Node* next = x->Next(level);
    if (next != nullptr && cmp_(next->key, key) < 0) {
      x = next;
    } else if (level == 0) {
      return x;
    } else {
      level--;
    }
  }
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::FindLast() const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr) {
      x = next;
    } else if (level == 0) {
      return x;
    } else {
      level--;
    }
  }
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::Insert(const Key& key) {
  SHALE_CHECK(pending_node_ == nullptr);
  const int height = RandomHeight();
  LinkNode(NewNode(key, height), height);
}

template <typename Key, class Cmp>
char* SkipList<Key, Cmp>::AllocatePayload(size_t payload_bytes) {
  const Reservation r = AllocateNode(payload_bytes);
  pending_node_ = r.node_mem;
  pending_height_ = r.height;
  return r.payload;
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::InsertPayload(const Key& key) {
  SHALE_CHECK(pending_node_ != nullptr);
  Node* x = ConstructNode(pending_node_, key, pending_height_);
  pending_node_ = nullptr;
  LinkNode(x, pending_height_);
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::LinkNode(Node* x, int height) {
  const Key& key = x->key;
  Node* prev[kMaxHeight];
  Node* next[kMaxHeight] = {};  // the checks read next[0]; gcc cannot see it is set
  const int max_height = GetMaxHeight();
  if (splice_height_ == max_height && SpliceBrackets(key)) {
    for (int i = 0; i < max_height; i++) {
      prev[i] = splice_prev_[i];
      next[i] = splice_next_[i];
    }
  } else {
    next[0] = FindGreaterOrEqual(key, prev);
    for (int i = 1; i < max_height; i++) next[i] = prev[i]->NoBarrierNext(i);
  }
  SHALE_CHECK(next[0] == nullptr || cmp_(key, next[0]->key) != 0);  // duplicates are not allowed
  if (height > max_height) {
    for (int i = max_height; i < height; i++) {
      prev[i] = head_;
      next[i] = nullptr;
    }
    // A reader that sees the new height before the node is linked finds
    // nullptr at the new levels from head_ and drops down: still correct.
    max_height_.store(height, std::memory_order_relaxed);
  }
  for (int i = 0; i < height; i++) {
    // x is not yet reachable, so its own links need no barrier; the release
    // store in prev[i] publishes x together with its key and links.
    x->NoBarrierSetNext(i, next[i]);
    prev[i]->SetNext(i, x);
  }
  SHALE_CHECK(prev[0] == head_ || cmp_(prev[0]->key, key) < 0);
  SHALE_CHECK(x->Next(0) == nullptr || cmp_(key, x->Next(0)->key) < 0);
  // The splice for the next insert: x at its levels, the old neighbours above.
  splice_height_ = height > max_height ? height : max_height;
  for (int i = 0; i < splice_height_; i++) {
    splice_prev_[i] = i < height ? x : prev[i];
    splice_next_[i] = next[i];
  }
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Reservation SkipList<Key, Cmp>::ReserveNode(size_t payload_bytes) {
  splice_height_ = 0;  // concurrent inserts will change links the splice names
  return AllocateNode(payload_bytes);
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Reservation SkipList<Key, Cmp>::AllocateNode(size_t payload_bytes) {
  SHALE_CHECK(pending_node_ == nullptr);  // no AllocatePayload waiting for its InsertPayload
  Reservation r;
  r.height = RandomHeight();
  const size_t node_bytes = NodeBytes(r.height);
  r.node_mem = arena_->AllocateAligned(node_bytes + payload_bytes);
  r.payload = r.node_mem + node_bytes;
  return r;
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::InsertConcurrently(const Reservation& r, const Key& key) {
  SHALE_CHECK(r.node_mem != nullptr);
  SHALE_CHECK(r.height >= 1 && r.height <= kMaxHeight);
  LinkNodeConcurrently(ConstructNode(r.node_mem, key, r.height), r.height);
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::RaiseMaxHeight(int height) {
  int current = max_height_.load(std::memory_order_relaxed);
  while (height > current &&
         !max_height_.compare_exchange_weak(current, height, std::memory_order_relaxed)) {
  }
  SHALE_CHECK(max_height_.load(std::memory_order_relaxed) >= height);
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::FindSpliceForLevel(const Key& key, Node* before, int level, Node** prev,
                                            Node** next) const {
  SHALE_CHECK(before == head_ || cmp_(before->key, key) < 0);
  Node* x = before;
  while (true) {
    Node* after = x->Next(level);
    if (!KeyIsAfterNode(key, after)) {
      SHALE_CHECK(after == nullptr || cmp_(key, after->key) != 0);  // duplicates are not allowed
      *prev = x;
      *next = after;
      return;
    }
    x = after;
  }
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::LinkNodeConcurrently(Node* x, int height) {
  const Key& key = x->key;
  // Readers that see the raised height before x is linked find nullptr or
  // older nodes at the new levels: still correct (see LinkNode).
  RaiseMaxHeight(height);
  // The splice at every level, top-down; each level starts from the level
  // above's prev, which is linked at this level too (bottom-up linking).
  Node* prev[kMaxHeight];
  Node* next[kMaxHeight];
  Node* before = head_;
  for (int level = GetMaxHeight() - 1; level >= 0; level--) {
    Node* level_prev;
    Node* level_next;
    FindSpliceForLevel(key, before, level, &level_prev, &level_next);
    if (level < height) {
      prev[level] = level_prev;
      next[level] = level_next;
    }
    before = level_prev;
  }
  // Bottom-up: x is visible at level i only after it is linked below i.
  // Until the CAS at level i succeeds no reader follows x's link i, so it
  // may be rewritten without a barrier; the release CAS publishes it.
  for (int i = 0; i < height; i++) {
    while (true) {
      x->NoBarrierSetNext(i, next[i]);
      if (prev[i]->CasNext(i, next[i], x)) break;
      // Another writer linked a node after prev[i]; prev[i] stays < key and
      // in the list, so the new splice is further along from it.
      FindSpliceForLevel(key, prev[i], i, &prev[i], &next[i]);
    }
  }
  SHALE_CHECK(x->Next(0) == nullptr || cmp_(key, x->Next(0)->key) < 0);
}

template <typename Key, class Cmp>
bool SkipList<Key, Cmp>::Contains(const Key& key) const {
  Node* x = FindGreaterOrEqual(key, nullptr);
  return x != nullptr && cmp_(key, x->key) == 0;
}

}  // namespace shale
