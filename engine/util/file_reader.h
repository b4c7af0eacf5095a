// RandomAccessFileReader: positional reads over a RandomAccessFile that
// counts bytes and calls, and, when the file uses direct I/O, widens each
// read to the file's alignment into an aligned buffer and copies out the
// requested range.
//
// Ownership: owns the RandomAccessFile.
// Thread safety: Read may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shale/env.h"
#include "util/stats_counters.h"

namespace shale {

class RandomAccessFileReader {
 public:
  RandomAccessFileReader(std::unique_ptr<RandomAccessFile> file, std::string path,
                         StatsCounters* stats = nullptr);

  // Reads up to n bytes at offset; *result points into scratch, or into
  // the file's map when mapped().
  // REQUIRES: scratch has room for n bytes, unless mapped() (then it may be
  // nullptr).
  [[nodiscard]] Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const;
  // Whether reads answer from a map of the file that stays valid, unchanged,
  // while this reader lives (RandomAccessFile::ReadsAreMapped).
  bool mapped() const { return mapped_; }

  const std::string& path() const { return path_; }
  RandomAccessFile* file() const { return file_.get(); }

 private:
  std::unique_ptr<RandomAccessFile> file_;
  std::string path_;
  StatsCounters* stats_;
  bool mapped_;
};

}  // namespace shale
