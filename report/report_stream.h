// ReportStream: a JSON document of the shape HEAD item, item, ... TAIL that
// grows one item at a time in place and is whole JSON after every write.
// `shale run` writes DIR/report.json through it (report.h gives the head,
// entry lines and tail).
//
// How: the file is always HEAD + items + TAIL (+ blanks). Adding an item is
// one pwrite at the offset where the previous TAIL began, of
// [","] "\n" ITEM TAIL', padded with blanks to cover the old end if TAIL'
// is shorter than TAIL was (JSON allows trailing blanks). So the cost per
// item is the item plus the tail, whatever the number of items, and the
// tail (totals, wall time so far) is always current.
//
// Why this and not JSON lines plus checkpoints: report.json stays the one
// file readers take (`shale report merge`, ci/determinism, dashboards), is
// current after every seed, and is never rewritten whole.
//
// What survives: every catchable signal is blocked for the duration of each
// pwrite, so a process killed by any signal but SIGKILL leaves whole JSON
// holding every item whose Add returned. SIGKILL (and only it) can cut a
// pwrite that spans a 4 KiB page boundary: the file then ends in a partial
// item, and report_reader.h still recovers every whole line before it.
// Nothing is fsynced: a power loss may lose or tear recent items.
//
// Thread safety: none; one thread. Ownership: owns its file descriptor.
// Not copyable. No exceptions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shale::report {

class ReportStream {
 public:
  ReportStream() = default;
  ~ReportStream();
  ReportStream(const ReportStream&) = delete;
  ReportStream& operator=(const ReportStream&) = delete;

  // Replaces path, atomically (temporary + rename), with HEAD TAIL, and
  // keeps it open for Add. REQUIRES: not open. False with one line in
  // *error.
  [[nodiscard]] bool Open(const std::string& path, std::string_view head, std::string_view tail,
                          std::string* error);
  // Appends item (one line, no newline) and replaces the tail.
  // REQUIRES: open. False with one line in *error (the file may then be
  // torn; the stream stays usable for nothing but Close).
  [[nodiscard]] bool Add(std::string_view item, std::string_view tail, std::string* error);
  // Overwrites text.size() bytes of the head at offset in place, in one
  // pwrite: for fixed-width fields. REQUIRES: open; offset + text.size()
  // <= the head's size; the result is valid JSON. False with one line in
  // *error.
  [[nodiscard]] bool Overwrite(uint64_t offset, std::string_view text, std::string* error);
  // Replaces the tail, drops any trailing blanks, and closes the file.
  [[nodiscard]] bool Finish(std::string_view tail, std::string* error);

 private:
  // Writes text (what replaces the tail: [separator item] tail) at
  // tail_offset_, blank-padded to cover the old end of file.
  [[nodiscard]] bool ReplaceTail(std::string text, std::string* error);
  // One pwrite (retried only if short) with catchable signals blocked.
  [[nodiscard]] bool WriteAt(uint64_t offset, std::string_view text, std::string* error);

  std::string path_;
  int fd_ = -1;
  uint64_t tail_offset_ = 0;  // where the current tail begins
  uint64_t end_offset_ = 0;   // file size (tail plus any padding)
  uint64_t items_ = 0;
  uint64_t head_size_ = 0;
};

}  // namespace shale::report
