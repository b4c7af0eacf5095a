// Whole-file reads and atomic whole-file writes for report files, so a
// report is never seen half-written (BRIEF section 7): the contents go to a
// temporary file in the same directory which is then renamed over the path.
//
// Thread safety: stateless; concurrent writers of one path race (last
// rename wins, each file whole). No exceptions escape.
#pragma once

#include <string>

namespace shale::report {

// Writes path.tmp.<pid>, then renames it to path. On failure removes the
// temporary file and returns false with one line in *error.
[[nodiscard]] bool WriteFileAtomically(const std::string& path, const std::string& contents,
                                       std::string* error);

// Reads the whole of path into *contents (a limit of 1 GiB guards against
// reading a device by mistake).
[[nodiscard]] bool ReadWholeFile(const std::string& path, std::string* contents,
                                 std::string* error);

// Creates path and its parents; true if it exists as a directory after.
[[nodiscard]] bool MakeDirectories(const std::string& path, std::string* error);

}  // namespace shale::report
