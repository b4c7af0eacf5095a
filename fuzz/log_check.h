// Checks shared by the WAL and MANIFEST fuzz targets.
//
// VerifyRecordSpan re-parses, independently of log::Reader, the fragments a
// record was assembled from (file offsets [begin, end)) and checks that each
// one's checksum matches, that they form a Full or First..Middle*..Last
// chain inside block bounds, and that their payloads concatenate to record.
// A reader that ever hands back bytes failing this decoded damage as data.
//
// RewriteLog writes records through log::Writer into a fresh log and reads
// it back with the strictest mode; the records must come back unchanged
// (decode -> encode -> decode).
//
// Thread safety: stateless functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shale/slice.h"

namespace shale_fuzz {

// True if contents[begin, end) holds exactly record's whole, checksummed
// fragments (block-trailer padding between them allowed).
bool VerifyRecordSpan(const std::string& contents, uint64_t begin, uint64_t end,
                      const shale::Slice& record);

// Writes records into a new log and returns its bytes.
std::string EncodeLog(const std::vector<std::string>& records);

// Reads every record of a log with kAbsoluteConsistency; aborts (FUZZ_CHECK)
// if the log is not read back whole and OK.
std::vector<std::string> DecodeWholeLog(const std::string& contents);

}  // namespace shale_fuzz
