// EncodedIKey: the encoded bytes of the internal key (user_key, seq, type),
// as a std::string, for tests that feed or compare raw internal keys
// (memtable and table tests). The version tests use their own IKey, which
// returns a shale::InternalKey. Test-only; pure function.
#pragma once

#include <string>

#include "db/dbformat.h"

namespace shale_test {

inline std::string EncodedIKey(const std::string& user_key, shale::SequenceNumber seq,
                               shale::ValueType type = shale::kTypeValue) {
  std::string k;
  shale::AppendInternalKey(&k, shale::ParsedInternalKey(user_key, seq, type));
  return k;
}

}  // namespace shale_test
