#include "loaded_library.h"

#include <elf.h>
#include <link.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace shale::bench {
namespace {

struct Search {
  std::string_view prefix;
  std::string found;
};

int VisitObject(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  const std::string_view path(info->dlpi_name);
  const size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (file.substr(0, search->prefix.size()) != search->prefix) return 0;
  search->found = std::string(path);
  return 1;  // stop
}

// The bytes [offset, offset + n) of file, if they lie inside it.
const char* At(const std::vector<char>& file, uint64_t offset, uint64_t n) {
  if (offset > file.size() || n > file.size() - offset) return nullptr;
  return file.data() + offset;
}

}  // namespace

std::string LoadedLibraryPath(std::string_view name_prefix) {
  Search search{name_prefix, {}};
  dl_iterate_phdr(&VisitObject, &search);
  return search.found;
}

AssertState LibraryAssertions(const std::string& path) {
  constexpr size_t kMaxLibraryBytes = size_t{1} << 30;
  std::ifstream in(path, std::ios::binary);
  if (!in) return AssertState::kUnknown;
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() > kMaxLibraryBytes) return AssertState::kUnknown;
  Elf64_Ehdr header;
  const char* h = At(file, 0, sizeof(header));
  if (h == nullptr) return AssertState::kUnknown;
  std::memcpy(&header, h, sizeof(header));
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_shentsize != sizeof(Elf64_Shdr)) {
    return AssertState::kUnknown;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  const char* s = At(file, header.e_shoff, uint64_t{header.e_shnum} * sizeof(Elf64_Shdr));
  if (s == nullptr) return AssertState::kUnknown;
  std::memcpy(sections.data(), s, sections.size() * sizeof(Elf64_Shdr));
  for (const Elf64_Shdr& dynsym : sections) {
    if (dynsym.sh_type != SHT_DYNSYM || dynsym.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[dynsym.sh_link];
    const char* names = At(file, strtab.sh_offset, strtab.sh_size);
    const char* symbols = At(file, dynsym.sh_offset, dynsym.sh_size);
    if (names == nullptr || symbols == nullptr) return AssertState::kUnknown;
    const uint64_t count = dynsym.sh_size / sizeof(Elf64_Sym);
    for (uint64_t i = 0; i < count; i++) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, symbols + i * sizeof(Elf64_Sym), sizeof(symbol));
      if (symbol.st_shndx != SHN_UNDEF || symbol.st_name >= strtab.sh_size) continue;
      const char* name = names + symbol.st_name;
      const size_t room = strtab.sh_size - symbol.st_name;
      if (strnlen(name, room) < room && std::strcmp(name, "__assert_fail") == 0) {
        return AssertState::kOn;
      }
    }
    return AssertState::kOff;
  }
  return AssertState::kUnknown;
}

std::string DescribeLoadedLibrary(std::string_view what, std::string_view name_prefix) {
  const std::string path = LoadedLibraryPath(name_prefix);
  std::string line(what);
  if (path.empty()) return line + " (its library's path is unknown)";
  line += " from " + path;
  switch (LibraryAssertions(path)) {
    case AssertState::kOn:
      return line + ": built without NDEBUG, assertions on, so it runs slower than a release build";
    case AssertState::kOff:
      return line + ": a release build (assertions off)";
    case AssertState::kUnknown:
      break;
  }
  return line + ": whether its assertions are on is unknown";
}

}  // namespace shale::bench
