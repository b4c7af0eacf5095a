#!/usr/bin/env bash
# check_seam: the engine touches the OS only through the Env seam (env.h).
#
# Fails (exit 1, one "file:line: [rule] text" per hit) if any C/C++ file under
# ROOT/engine/ outside engine/port/ uses threads, locks, clocks, randomness,
# getenv, raw syscalls or their headers, or direct file streams. Comment-only
# lines and trailing `// ...` comments are ignored. Calls such as open( or
# time( hit only as free calls (bare, `::open(` or `std::time(`), never as
# members or longer names: `file->Read(`, `NewRandomAccessFile(`, `runtime(`.
#
# Usage: ci/check_seam.sh [ROOT]   (ROOT defaults to the repository root)
# Exit: 0 clean, 1 violations found, 2 bad usage.
set -euo pipefail

root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
if [[ ! -d "$root/engine" ]]; then
  echo "check_seam: no engine/ directory under '$root'" >&2
  exit 2
fi

cd "$root"
find engine -path engine/port -prune -o -type f \
  \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.cpp' -o -name '*.c' -o -name '*.inc' \) \
  -print | LC_ALL=C sort | perl -e '
  my $call = q{(?<![\w.>:])(?:(?:std)?::)?};
  my @rules = (
    ["thread/lock type", qr/\bstd::(?:j?thread|(?:recursive_|shared_|timed_|recursive_timed_|shared_timed_)?mutex|condition_variable(?:_any)?|this_thread)\b/],
    ["std::chrono clock", qr/\bstd::chrono::(?:system_clock|steady_clock|high_resolution_clock)\b/],
    ["forbidden header", qr/^\s*#\s*include\s*<(?:random|thread|mutex|shared_mutex|condition_variable|chrono|fstream|filesystem|unistd\.h|fcntl\.h|pthread\.h|dirent\.h|sys\/[^>]*)>/],
    ["randomness", qr/\brandom_device\b|${call}s?rand\s*\(/],
    ["getenv", qr/\b(?:secure_)?getenv\b/],
    ["raw syscall", qr/${call}(?:open|pread|pwrite|fsync|fdatasync|usleep|sleep|time|fopen)\s*\(|\b(?:clock_gettime|gettimeofday)\b/],
    ["file stream", qr/\bstd::(?:[io]?fstream|filesystem)\b/],
  );
  my $hits = 0;
  my $files = 0;
  while (my $path = <STDIN>) {
    chomp $path;
    open(my $fh, "<", $path) or die "check_seam: cannot read $path: $!\n";
    $files++;
    while (my $line = <$fh>) {
      next if $line =~ m{^\s*//};             # comment-only line
      next if $line =~ m{^\s*(?:/\*|\*\s|\*$)};  # block-comment line
      (my $code = $line) =~ s{(^|\s)//.*$}{$1};  # trailing comment
      for my $rule (@rules) {
        next unless $code =~ $rule->[1];
        chomp $line;
        $line =~ s/^\s+//;
        print "$path:$.: [$rule->[0]] $line\n";
        $hits++;
        last;
      }
    }
    close $fh;
  }
  if ($hits) {
    print STDERR "check_seam: FAILED: $hits use(s) of the OS outside engine/port/ (use the Env seam)\n";
    exit 1;
  }
  print "check_seam: OK ($files engine files outside engine/port/)\n";
'
