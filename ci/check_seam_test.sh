#!/usr/bin/env bash
# check_seam_test: proves ci/check_seam.sh bites. Builds a tiny fake engine
# tree in a temp dir; each planted violation (one per forbidden kind) must be
# reported at its file:line with exit 1; a clean file full of near-misses
# (member calls, longer names, comments) and a violation inside engine/port/
# must pass with exit 0.
set -euo pipefail

checker="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_seam.sh"
tmp=$(mktemp -d /tmp/shale_check_seam_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

PLANTED=(
  'std::thread worker;'
  'std::mutex mu;'
  'std::shared_mutex smu;'
  'std::condition_variable cv;'
  'std::this_thread::yield();'
  'auto t = std::chrono::system_clock::now();'
  'auto t = std::chrono::steady_clock::now();'
  'auto t = std::chrono::high_resolution_clock::now();'
  'int r = rand();'
  'srand(42);'
  'int r = std::rand();'
  'std::random_device rd;'
  '#include <random>'
  '#include <thread>'
  '#include <mutex>'
  '#include <condition_variable>'
  '#include <chrono>'
  'const char* home = getenv("HOME");'
  '#include <unistd.h>'
  '#include <fcntl.h>'
  '#include <sys/stat.h>'
  '#include <pthread.h>'
  'int fd = open("x", 0);'
  'int fd = ::open("x", 0);'
  'pread(fd, buf, n, 0);'
  'pwrite(fd, buf, n, 0);'
  'fsync(fd);'
  'fdatasync(fd);'
  'usleep(10);'
  'sleep(1);'
  'time_t now = time(nullptr);'
  'clock_gettime(CLOCK_MONOTONIC, &ts);'
  'gettimeofday(&tv, nullptr);'
  'std::mutex mu;  // a trailing comment does not hide code'
)

# Near-misses that must NOT hit.
write_clean_file() {
  cat >"$1" <<'CLEAN'
// std::mutex, open(), fsync(fd) and getenv in a comment-only line are fine.
  // So is an indented comment: #include <thread>
/* A block comment that mentions rand() */
 * continuation line mentioning sleep(1)
#include <string>
#include "util/random.h"
Status s = file->Read(offset, n, &result, scratch);
Status t = fs->NewRandomAccessFile(path, opts, &file);
Status u = fs->NewSequentialFile(path, opts, &seq);
reader.open(path);
handle->pread(fd);
env->runtime()->SleepForMicroseconds(10);
uint64_t open_files = max_open_files(options);
bool timeout = TimedWait(deadline);
Random rnd(seed); uint32_t x = rnd.Uniform(10);
uint64_t now = env->clock()->NowNanos();  // not clock_gettime
int n = Reopen(db); auto when = lifetime(x); auto r = operand(x);
obj.time(); obj->sleep(1); Foo::open(x);
CLEAN
}

fresh_tree() {
  rm -rf "$tmp/root"
  mkdir -p "$tmp/root/engine/db" "$tmp/root/engine/port"
  write_clean_file "$tmp/root/engine/db/clean.cc"
}

failures=0
fail() {
  echo "check_seam_test: FAIL: $*" >&2
  failures=$((failures + 1))
}

# 1. The clean tree passes, even with a violation inside engine/port/.
fresh_tree
echo 'std::mutex allowed_here;' >"$tmp/root/engine/port/posix_thing.cc"
if ! out=$("$checker" "$tmp/root" 2>&1); then fail "clean tree rejected: $out"; fi

# 2. Each planted violation is caught at its file:line.
for line in "${PLANTED[@]}"; do
  fresh_tree
  printf '// planted\n#include <string>\n%s\n' "$line" >"$tmp/root/engine/db/planted.cc"
  rc=0
  out=$("$checker" "$tmp/root" 2>&1) || rc=$?
  if [[ $rc -ne 1 ]]; then
    fail "not caught (exit $rc): $line"
  elif [[ "$out" != *"engine/db/planted.cc:3:"* ]]; then
    fail "caught but not at planted.cc:3: $line :: $out"
  elif [[ "$out" == *"clean.cc"* ]]; then
    fail "false hit in clean.cc while checking: $line :: $out"
  fi
done

# 3. Bad usage is exit 2.
rc=0
"$checker" "$tmp/no_such_root" >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "missing root gave exit $rc, want 2"

if [[ $failures -ne 0 ]]; then
  echo "check_seam_test: $failures failure(s)" >&2
  exit 1
fi
echo "check_seam_test: OK (${#PLANTED[@]} planted violations caught, clean tree passes)"
