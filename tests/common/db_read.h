// Reads of a DB as strings, so that one REQUIRE compares a read's whole
// outcome, errors included:
//   Read(db, key[, snapshot]): the value, "NOT_FOUND", or "ERROR: <status>";
//       ReadOutcome(status, value) the same for any read's result.
//   Scan(db[, snapshot]): "k1=v1;k2=v2;" in key order, or "ERROR: <status>".
// Test-only helpers; thread-safe as far as the DB is.
#pragma once

#include <memory>
#include <string>

#include "shale/db.h"

namespace shale_test {

inline std::string ReadOutcome(const shale::Status& s, const std::string& value) {
  if (s.IsNotFound()) return "NOT_FOUND";
  if (!s.ok()) return "ERROR: " + s.ToString();
  return value;
}

inline std::string Read(shale::DB* db, const std::string& key,
                        const shale::Snapshot* snap = nullptr) {
  shale::ReadOptions ro;
  ro.snapshot = snap;
  std::string value;
  const shale::Status s = db->Get(ro, key, &value);
  return ReadOutcome(s, value);
}

inline std::string Scan(shale::DB* db, const shale::Snapshot* snap = nullptr) {
  shale::ReadOptions ro;
  ro.snapshot = snap;
  std::unique_ptr<shale::Iterator> it(db->NewIterator(ro));
  std::string out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out += it->key().ToString() + "=" + it->value().ToString() + ";";
  }
  if (!it->status().ok()) return "ERROR: " + it->status().ToString();
  return out;
}

}  // namespace shale_test
