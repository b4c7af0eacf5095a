// File names and the CURRENT switch.
#include <catch2/catch.hpp>
#include <string>

#include "common/temp_dir.h"
#include "shale/env.h"
#include "version/filename.h"

namespace shale {
namespace {

TEST_CASE("file names round trip through ParseFileName", "[filename]") {
  struct Case {
    std::string path;
    uint64_t number;
    FileType type;
  };
  const Case cases[] = {
      {LogFileName("db", 7), 7, FileType::kLogFile},
      {TableFileName("db", 123456789), 123456789, FileType::kTableFile},
      {DescriptorFileName("db", 2), 2, FileType::kDescriptorFile},
      {TempFileName("db", 9), 9, FileType::kTempFile},
      {CurrentFileName("db"), 0, FileType::kCurrentFile},
      {LockFileName("db"), 0, FileType::kDBLockFile},
      {InfoLogFileName("db"), 0, FileType::kInfoLogFile},
      {TableFileName("db", ~uint64_t{0}), ~uint64_t{0}, FileType::kTableFile},
  };
  for (const Case& c : cases) {
    REQUIRE(c.path.rfind("db/", 0) == 0);
    const std::string name = c.path.substr(3);
    uint64_t number = 99;
    FileType type = FileType::kTempFile;
    INFO(name);
    REQUIRE(ParseFileName(name, &number, &type));
    CHECK(number == c.number);
    CHECK(type == c.type);
  }
  CHECK(LogFileName("db", 7) == "db/000007.log");
  CHECK(DescriptorFileName("db", 12) == "db/MANIFEST-000012");
}

TEST_CASE("ParseFileName rejects near misses", "[filename]") {
  const char* bad[] = {"",
                       "foo",
                       "000001",
                       "000001.ldb",
                       ".log",
                       "-1.log",
                       "1.log ",
                       " 1.log",
                       "MANIFEST-",
                       "MANIFEST",
                       "MANIFEST-1x",
                       "MANIFEST--1",
                       "CURRENTX",
                       "LOCK.old",
                       "18446744073709551616.sst",
                       "1.sst.bak",
                       "MANIFEST-18446744073709551616"};
  for (const char* name : bad) {
    uint64_t number = 0;
    FileType type;
    INFO(name);
    CHECK_FALSE(ParseFileName(name, &number, &type));
  }
}

TEST_CASE("CURRENT contents encode and decode", "[filename]") {
  std::string name;
  uint64_t number = 0;
  REQUIRE(EncodeCurrentFile(5) == "MANIFEST-000005\n");
  REQUIRE(DecodeCurrentFile("MANIFEST-000005\n", &name, &number).ok());
  CHECK(name == "MANIFEST-000005");
  CHECK(number == 5);
  REQUIRE(DecodeCurrentFile("MANIFEST-12345678\n", &name, &number).ok());
  CHECK(number == 12345678);
  for (const std::string bad :
       {"", "MANIFEST-000005", "MANIFEST-\n", "000005.log\n", "MANIFEST-5\n\n", "CURRENT\n"}) {
    CAPTURE(bad);
    CHECK(DecodeCurrentFile(bad, &name, &number).IsCorruption());
  }
  // A huge damaged CURRENT gives a short message.
  const Status s = DecodeCurrentFile(std::string(1 << 20, '\x01') + "\n", &name, &number);
  CHECK(s.IsCorruption());
  CHECK(s.ToString().size() < 400);
}

TEST_CASE("SetCurrentFile writes CURRENT and leaves no temp file", "[filename]") {
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  FileSystem* fs = Env::Default()->fs();
  StatsCounters stats;
  REQUIRE(SetCurrentFile(fs, dir.path(), 5, &stats).ok());
  std::string contents;
  REQUIRE(ReadFileToString(fs, CurrentFileName(dir.path()), &contents).ok());
  CHECK(contents == "MANIFEST-000005\n");
  REQUIRE(SetCurrentFile(fs, dir.path(), 6, &stats).ok());
  REQUIRE(ReadFileToString(fs, CurrentFileName(dir.path()), &contents).ok());
  CHECK(contents == "MANIFEST-000006\n");
  std::vector<std::string> names;
  REQUIRE(fs->GetChildren(dir.path(), &names).ok());
  CHECK(names == std::vector<std::string>{"CURRENT"});
  CHECK(stats.dir_syncs.load() == 2);
}

TEST_CASE("SetCurrentFile reports a missing directory", "[filename]") {
  shale_test::TempDir dir;
  REQUIRE(dir.ok());
  Status s = SetCurrentFile(Env::Default()->fs(), dir.Child("absent"), 3, nullptr);
  CHECK_FALSE(s.ok());
}

}  // namespace
}  // namespace shale
