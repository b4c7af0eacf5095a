// Which build of a comparison engine the bench runs: the shared library
// the process actually loaded (LD_LIBRARY_PATH may swap Debian's for a
// release build), and whether that library keeps assertions on.
//
// Thread safety: both functions may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace shale::bench {

// The path of the first loaded shared object whose file name starts with
// name_prefix (e.g. "libleveldb.so"); "" if none is loaded.
std::string LoadedLibraryPath(std::string_view name_prefix);

enum class AssertState { kOn, kOff, kUnknown };

// kOn if the ELF file at path imports __assert_fail (it was built without
// NDEBUG), kOff if its dynamic symbol table does not name it, kUnknown if
// the file cannot be read or is not a 64-bit ELF shared object.
AssertState LibraryAssertions(const std::string& path);

// One line for a Notes(): "<what> from <path>: assertions on|off (...)".
std::string DescribeLoadedLibrary(std::string_view what, std::string_view name_prefix);

}  // namespace shale::bench
