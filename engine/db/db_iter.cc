// The user-facing iterator.
//
// Forward direction: the internal iterator sits ON the entry that is the
// current user entry (key()/value() read straight through).
// Reverse direction: the internal iterator sits just BEFORE all versions of
// the current user key (on the previous user key's entries, or invalid), and
// the current entry is copied into saved_key_/saved_value_.
#include "db/db_iter.h"
#include "util/check.h"
#include "version/version_set.h"

#include <string>

namespace shale {
namespace {

class DBIter final : public Iterator {
 public:
  DBIter(const Comparator* cmp, Iterator* iter, SequenceNumber s, const ReadCallback* callback,
         bool seek_skips_after_tombstone, Runtime* runtime, const VersionSet* step_reads_latest)
      : user_comparator_(cmp),
        iter_(iter),
        sequence_(s),
        callback_(callback),
        seek_skips_after_tombstone_(seek_skips_after_tombstone),
        runtime_(runtime),
        step_reads_latest_(step_reads_latest) {}
  ~DBIter() override { delete iter_; }

  bool Valid() const override { return valid_; }
  Slice key() const override {
    SHALE_CHECK(valid_);
    return direction_ == kForward ? ExtractUserKey(iter_->key()) : Slice(saved_key_);
  }
  Slice value() const override {
    SHALE_CHECK(valid_);
    return direction_ == kForward ? iter_->value() : Slice(saved_value_);
  }
  Status status() const override { return status_.ok() ? iter_->status() : status_; }

  void Next() override;
  void Prev() override;
  void Seek(const Slice& target) override;
  void SeekForPrev(const Slice& target) override;
  void SeekToFirst() override;
  void SeekToLast() override;

 private:
  enum Direction { kForward, kReverse };

  // Moves forward to the first visible entry at or after the internal
  // iterator's position. If skipping, entries with user key <= *skip are
  // hidden (they belong to a key already returned or deleted).
  void FindNextUserEntry(bool skipping, std::string* skip);
  // From a position after the wanted key's versions, moves backward and
  // leaves the previous visible entry in saved_key_/saved_value_.
  void FindPrevUserEntry();
  bool ParseKey(ParsedInternalKey* key);
  bool IsVisible(SequenceNumber seq) const {
    return seq <= sequence_ && (callback_ == nullptr || callback_->IsVisible(seq));
  }
  void SaveKey(const Slice& k, std::string* dst) { dst->assign(k.data(), k.size()); }
  void ClearSavedValue() {
    if (saved_value_.capacity() > 1048576) {
      std::string empty;
      swap(empty, saved_value_);
    } else {
      saved_value_.clear();
    }
  }

  const Comparator* const user_comparator_;
  Iterator* const iter_;
  SequenceNumber sequence_;                    // fixed, but for kBugIteratorStepReadsLatest
  const ReadCallback* const callback_;         // may be null
  const bool seek_skips_after_tombstone_;      // the planted bug
  Runtime* const runtime_;                     // yields at each step (may be null)
  const VersionSet* const step_reads_latest_;  // the planted bug (null: off)
  Status status_;
  std::string saved_key_;    // reverse: current key; forward: key to skip
  std::string saved_value_;  // reverse: current value
  Direction direction_ = kForward;
  bool valid_ = false;
};

bool DBIter::ParseKey(ParsedInternalKey* ikey) {
  if (!ParseInternalKey(iter_->key(), ikey)) {
    status_ = Status::Corruption("malformed internal key in DB iterator", iter_->key().ToHex());
    return false;
  }
  return true;
}

void DBIter::Next() {
  SHALE_CHECK(valid_);
  if (runtime_ != nullptr) runtime_->YieldPoint("iterator.step");
  if (step_reads_latest_ != nullptr) sequence_ = step_reads_latest_->LastSequence();
  if (direction_ == kReverse) {
    direction_ = kForward;
    // iter_ is before all entries of saved_key_: step into them, then skip
    // them all below.
    if (!iter_->Valid()) {
      iter_->SeekToFirst();
    } else {
      iter_->Next();
    }
    if (!iter_->Valid()) {
      valid_ = false;
      saved_key_.clear();
      return;
    }
    // saved_key_ already holds the key to skip.
  } else {
    SaveKey(ExtractUserKey(iter_->key()), &saved_key_);
    iter_->Next();
    if (!iter_->Valid()) {
      valid_ = false;
      saved_key_.clear();
      return;
    }
  }
  FindNextUserEntry(true, &saved_key_);
}

void DBIter::FindNextUserEntry(bool skipping, std::string* skip) {
  SHALE_CHECK(iter_->Valid());
  SHALE_CHECK(direction_ == kForward);
  do {
    ParsedInternalKey ikey;
    if (!ParseKey(&ikey)) {
      valid_ = false;
      return;
    }
    if (IsVisible(ikey.sequence)) {
      if (ikey.type == kTypeDeletion) {
        // Hide every older version of this key.
        SaveKey(ikey.user_key, skip);
        skipping = true;
      } else if (skipping && user_comparator_->Compare(ikey.user_key, *skip) <= 0) {
        // Hidden.
      } else {
        valid_ = true;
        saved_key_.clear();
        return;
      }
    }
    iter_->Next();
  } while (iter_->Valid());
  saved_key_.clear();
  valid_ = false;
}

void DBIter::Prev() {
  SHALE_CHECK(valid_);
  if (runtime_ != nullptr) runtime_->YieldPoint("iterator.step");
  if (step_reads_latest_ != nullptr) sequence_ = step_reads_latest_->LastSequence();
  if (direction_ == kForward) {
    // iter_ is on the current entry: back up until before all its versions.
    SHALE_CHECK(iter_->Valid());
    SaveKey(ExtractUserKey(iter_->key()), &saved_key_);
    while (true) {
      iter_->Prev();
      if (!iter_->Valid()) {
        valid_ = false;
        saved_key_.clear();
        ClearSavedValue();
        return;
      }
      if (user_comparator_->Compare(ExtractUserKey(iter_->key()), saved_key_) < 0) break;
    }
    direction_ = kReverse;
  }
  FindPrevUserEntry();
}

void DBIter::FindPrevUserEntry() {
  SHALE_CHECK(direction_ == kReverse);
  ValueType value_type = kTypeDeletion;
  if (iter_->Valid()) {
    do {
      ParsedInternalKey ikey;
      if (!ParseKey(&ikey)) {
        valid_ = false;
        return;
      }
      if (IsVisible(ikey.sequence)) {
        if (value_type != kTypeDeletion &&
            user_comparator_->Compare(ikey.user_key, saved_key_) < 0) {
          break;  // passed the newest visible version of the previous key
        }
        value_type = ikey.type;
        if (value_type == kTypeDeletion) {
          saved_key_.clear();
          ClearSavedValue();
        } else {
          const Slice raw_value = iter_->value();
          if (saved_value_.capacity() > raw_value.size() + 1048576) {
            std::string empty;
            swap(empty, saved_value_);
          }
          SaveKey(ExtractUserKey(iter_->key()), &saved_key_);
          saved_value_.assign(raw_value.data(), raw_value.size());
        }
      }
      iter_->Prev();
    } while (iter_->Valid());
  }
  if (value_type == kTypeDeletion) {
    valid_ = false;
    saved_key_.clear();
    ClearSavedValue();
    direction_ = kForward;
  } else {
    valid_ = true;
  }
}

void DBIter::Seek(const Slice& target) {
  direction_ = kForward;
  ClearSavedValue();
  saved_key_.clear();
  std::string ikey;
  AppendInternalKey(&ikey, ParsedInternalKey(target, sequence_, kValueTypeForSeek));
  iter_->Seek(ikey);
  if (!iter_->Valid()) {
    valid_ = false;
    return;
  }
  ParsedInternalKey first;
  const bool target_deleted = seek_skips_after_tombstone_ &&
                              ParseInternalKey(iter_->key(), &first) &&
                              first.type == kTypeDeletion && IsVisible(first.sequence) &&
                              user_comparator_->Compare(first.user_key, target) == 0;
  FindNextUserEntry(false, &saved_key_);
  if (target_deleted && valid_) Next();
}

void DBIter::SeekForPrev(const Slice& target) {
  // Position after every version of target, then find backwards.
  direction_ = kReverse;
  ClearSavedValue();
  saved_key_.clear();
  std::string ikey;
  AppendInternalKey(&ikey, ParsedInternalKey(target, 0, kTypeDeletion));
  iter_->SeekForPrev(ikey);
  FindPrevUserEntry();
}

void DBIter::SeekToFirst() {
  direction_ = kForward;
  ClearSavedValue();
  saved_key_.clear();
  iter_->SeekToFirst();
  if (iter_->Valid()) {
    FindNextUserEntry(false, &saved_key_);
  } else {
    valid_ = false;
  }
}

void DBIter::SeekToLast() {
  direction_ = kReverse;
  ClearSavedValue();
  saved_key_.clear();
  iter_->SeekToLast();
  FindPrevUserEntry();
}

}  // namespace

Iterator* NewDBIterator(const Comparator* user_comparator, Iterator* internal,
                        SequenceNumber sequence, const ReadCallback* callback,
                        uint64_t planted_bugs, Runtime* runtime, const VersionSet* latest) {
  const bool reads_latest = (planted_bugs & kBugIteratorStepReadsLatest) != 0;
  return new DBIter(user_comparator, internal, sequence, callback,
                    (planted_bugs & kBugSeekSkipsKeyAfterTombstone) != 0, runtime,
                    reads_latest ? latest : nullptr);
}

}  // namespace shale
