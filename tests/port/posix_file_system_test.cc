// PosixFileSystem against a real directory under /tmp.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "port/posix_env.h"
#include "shale/env.h"

using namespace shale;
using shale_test::TempDir;

namespace {

std::string ReadAll(FileSystem* fs, const std::string& path) {
  std::string data;
  Status s = ReadFileToString(fs, path, &data);
  REQUIRE(s.ok());
  return data;
}

void Write(FileSystem* fs, const std::string& path, const std::string& data) {
  REQUIRE(WriteStringToFile(fs, data, path, /*sync=*/true).ok());
}

}  // namespace

TEST_CASE("Env::Default is one never-destroyed POSIX env", "[port][fs]") {
  Env* env = Env::Default();
  REQUIRE(env == Env::Default());
  REQUIRE(dynamic_cast<PosixFileSystem*>(env->fs()) != nullptr);
  REQUIRE(dynamic_cast<PosixClock*>(env->clock()) != nullptr);
  REQUIRE(dynamic_cast<PosixRuntime*>(env->runtime()) != nullptr);
}

TEST_CASE("append, positional write, sync and read back", "[port][fs]") {
  TempDir dir;
  REQUIRE(dir.ok());
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("f");
  std::unique_ptr<WritableFile> w;
  REQUIRE(fs->NewWritableFile(path, FileOptions(), &w).ok());
  REQUIRE(w->Append("hello ").ok());
  REQUIRE(w->Append("world").ok());
  REQUIRE(w->GetFileSize() == 11);
  REQUIRE(w->PositionedAppend("W", 6).ok());
  REQUIRE(w->GetFileSize() == 11);
  REQUIRE(w->PositionedAppend("!!", 11).ok());
  REQUIRE(w->GetFileSize() == 13);
  REQUIRE(w->Flush().ok());
  REQUIRE(w->Sync().ok());
  REQUIRE(w->Fsync().ok());
  REQUIRE(w->Close().ok());
  REQUIRE(w->Close().ok());             // idempotent
  REQUIRE(w->Append("x").IsIOError());  // further calls are errors
  REQUIRE(ReadAll(fs, path) == "hello World!!");

  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs->NewRandomAccessFile(path, FileOptions(), &r).ok());
  char scratch[32];
  Slice got;
  REQUIRE(r->Read(6, 5, &got, scratch).ok());
  REQUIRE(got.ToString() == "World");
  REQUIRE(r->Read(11, 10, &got, scratch).ok());  // short only at end of file
  REQUIRE(got.ToString() == "!!");
  REQUIRE(r->Read(100, 4, &got, scratch).ok());
  REQUIRE(got.empty());
}

TEST_CASE("sequential read and skip stop at end of file", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("seq");
  Write(fs, path, "0123456789");
  std::unique_ptr<SequentialFile> f;
  REQUIRE(fs->NewSequentialFile(path, FileOptions(), &f).ok());
  char scratch[16];
  Slice got;
  REQUIRE(f->Read(3, &got, scratch).ok());
  REQUIRE(got.ToString() == "012");
  REQUIRE(f->Skip(4).ok());
  REQUIRE(f->Read(16, &got, scratch).ok());
  REQUIRE(got.ToString() == "789");
  REQUIRE(f->Skip(1000).ok());
  REQUIRE(f->Read(4, &got, scratch).ok());
  REQUIRE(got.empty());
}

TEST_CASE("reopen appends at the current end", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("log");
  Write(fs, path, "abc");
  std::unique_ptr<WritableFile> w;
  REQUIRE(fs->ReopenWritableFile(path, FileOptions(), &w).ok());
  REQUIRE(w->GetFileSize() == 3);
  REQUIRE(w->Append("def").ok());
  REQUIRE(w->Close().ok());
  REQUIRE(ReadAll(fs, path) == "abcdef");
  REQUIRE(fs->ReopenWritableFile(dir.Child("fresh"), FileOptions(), &w).ok());
  REQUIRE(w->GetFileSize() == 0);
  REQUIRE(w->Close().ok());
  REQUIRE(fs->FileExists(dir.Child("fresh")).ok());
}

TEST_CASE("NewWritableFile truncates an existing file", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  Write(fs, dir.Child("t"), "long old contents");
  Write(fs, dir.Child("t"), "new");
  REQUIRE(ReadAll(fs, dir.Child("t")) == "new");
}

TEST_CASE("rename replaces an existing target atomically", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  Write(fs, dir.Child("CURRENT"), "MANIFEST-1\n");
  Write(fs, dir.Child("CURRENT.tmp"), "MANIFEST-2\n");
  REQUIRE(fs->RenameFile(dir.Child("CURRENT.tmp"), dir.Child("CURRENT")).ok());
  REQUIRE(fs->SyncDir(dir.path()).ok());
  REQUIRE(ReadAll(fs, dir.Child("CURRENT")) == "MANIFEST-2\n");
  REQUIRE(fs->FileExists(dir.Child("CURRENT.tmp")).IsNotFound());
}

TEST_CASE("GetChildren lists names sorted, without . and ..", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  for (const char* name : {"b", "000010.log", "a", "MANIFEST-000002", "000002.sst"}) {
    Write(fs, dir.Child(name), "x");
  }
  REQUIRE(fs->CreateDirIfMissing(dir.Child("sub")).ok());
  REQUIRE(fs->CreateDirIfMissing(dir.Child("sub")).ok());  // already there: OK
  std::vector<std::string> names;
  REQUIRE(fs->GetChildren(dir.path(), &names).ok());
  REQUIRE(names ==
          std::vector<std::string>{"000002.sst", "000010.log", "MANIFEST-000002", "a", "b", "sub"});
  REQUIRE(fs->DeleteDir(dir.Child("sub")).ok());
  REQUIRE(fs->GetChildren(dir.Child("sub"), &names).IsPathNotFound());
}

TEST_CASE("a deleted file stays readable through an open handle", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("000005.sst");
  Write(fs, path, "table bytes");
  std::unique_ptr<RandomAccessFile> r;
  REQUIRE(fs->NewRandomAccessFile(path, FileOptions(), &r).ok());
  REQUIRE(fs->DeleteFile(path).ok());
  REQUIRE(fs->FileExists(path).IsNotFound());
  char scratch[16];
  Slice got;
  REQUIRE(r->Read(0, 11, &got, scratch).ok());
  REQUIRE(got.ToString() == "table bytes");
}

TEST_CASE("missing paths map to PathNotFound, FileExists to NotFound", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  const std::string missing = dir.Child("nope");
  std::unique_ptr<SequentialFile> s;
  std::unique_ptr<RandomAccessFile> r;
  uint64_t size = 1;
  Status st = fs->NewSequentialFile(missing, FileOptions(), &s);
  REQUIRE(st.IsPathNotFound());
  REQUIRE(st.message().find(missing) != std::string::npos);
  REQUIRE(fs->NewRandomAccessFile(missing, FileOptions(), &r).IsPathNotFound());
  REQUIRE(fs->GetFileSize(missing, &size).IsPathNotFound());
  REQUIRE(fs->DeleteFile(missing).IsPathNotFound());
  REQUIRE(fs->RenameFile(missing, dir.Child("x")).IsPathNotFound());
  REQUIRE(fs->FileExists(missing).IsNotFound());
  REQUIRE(fs->SyncDir(dir.Child("no_dir")).IsPathNotFound());
  // Another errno is a plain IOError naming the path.
  Write(fs, dir.Child("file"), "x");
  st = fs->CreateDirIfMissing(dir.Child("file/sub"));
  REQUIRE(st.IsIOError());
  REQUIRE_FALSE(st.IsPathNotFound());
}

TEST_CASE("truncate and allocate", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("wal");
  std::unique_ptr<WritableFile> w;
  REQUIRE(fs->NewWritableFile(path, FileOptions(), &w).ok());
  REQUIRE(w->Allocate(0, 1 << 20).ok());
  REQUIRE(w->Allocate(0, 0).ok());
  uint64_t size = 99;
  REQUIRE(fs->GetFileSize(path, &size).ok());
  REQUIRE(size == 0);  // FALLOC_FL_KEEP_SIZE
  REQUIRE(w->Append("0123456789").ok());
  REQUIRE(w->Truncate(4).ok());
  REQUIRE(w->GetFileSize() == 4);
  REQUIRE(w->Append("xy").ok());  // appends at the new end
  REQUIRE(w->Close().ok());
  REQUIRE(fs->GetFileSize(path, &size).ok());
  REQUIRE(size == 6);
  REQUIRE(ReadAll(fs, path) == "0123xy");
}

TEST_CASE("LockFile excludes this process and others", "[port][fs]") {
  TempDir dir;
  FileSystem* fs = Env::Default()->fs();
  const std::string path = dir.Child("LOCK");
  std::unique_ptr<FileLock> lock;
  REQUIRE(fs->LockFile(path, &lock).ok());
  std::unique_ptr<FileLock> second;
  Status s = fs->LockFile(path, &second);
  REQUIRE(s.IsIOError());
  REQUIRE(s.message().find("lock held") != std::string::npos);

  // Another process sees the fcntl lock.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(path.c_str(), O_RDWR);
    struct flock f;
    std::memset(&f, 0, sizeof(f));
    f.l_type = F_WRLCK;
    f.l_whence = SEEK_SET;
    const bool refused = fd >= 0 && ::fcntl(fd, F_SETLK, &f) != 0;
    ::_exit(refused ? 0 : 1);
  }
  int wstatus = 0;
  REQUIRE(::waitpid(child, &wstatus, 0) == child);
  REQUIRE(WIFEXITED(wstatus));
  REQUIRE(WEXITSTATUS(wstatus) == 0);

  REQUIRE(fs->UnlockFile(std::move(lock)).ok());
  REQUIRE(fs->LockFile(path, &second).ok());
  second.reset();  // dropping the lock object releases it too
  REQUIRE(fs->LockFile(path, &lock).ok());
  REQUIRE(fs->UnlockFile(std::move(lock)).ok());
}
