// Damage to files on the real backend, for recovery tests: the newest WAL
// of a DB directory, and one flipped byte.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace shale_test {

// The path of the highest-numbered *.log file in dir ("dir/" if none).
inline std::string NewestWal(const std::string& dir) {
  std::string best;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log" && name > best) best = name;
  }
  return dir + "/" + best;
}

// XORs the byte at offset with 0x5a. REQUIRES: offset < the file's size.
inline void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

}  // namespace shale_test
