#!/usr/bin/env bash
# build_reference_leveldb.sh: a release build of LevelDB 1.23 from Debian's
# own source package, for `shale bench` comparisons next to Debian's build
# (which keeps assertions on). Optional and never run by CI.
#
# It fetches the source through a private apt configuration (a deb-src line
# for bookworm; the system's apt setup is untouched), applies Debian's
# patches (so the library keeps Debian's soname, libleveldb.so.1d), and
# builds it with -O2 -DNDEBUG, Snappy on. Everything lives in the cache
# directory, outside the repository.
#
# Usage: bench/scripts/build_reference_leveldb.sh [CACHE_DIR]
#        (default: $SHALE_REF_CACHE or ~/.cache/shale-reference)
# Then:  LD_LIBRARY_PATH=CACHE_DIR/leveldb-release build/shale bench --engine=all ...
# (the bench's LevelDB note names the library it loaded).
set -euo pipefail
cache=${1:-${SHALE_REF_CACHE:-$HOME/.cache/shale-reference}}
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
cache=$(cd "$cache" && pwd)
cat > "$cache/apt/sources.list" <<SOURCES
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
SOURCES
apt_options=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
             -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache")
cd "$cache"
if [[ ! -f leveldb_1.23.orig.tar.gz ]]; then
  apt-get "${apt_options[@]}" update >/dev/null
  apt-get "${apt_options[@]}" source --download-only leveldb=1.23-4 >/dev/null
fi
rm -rf leveldb-1.23 leveldb-release
tar xf leveldb_1.23.orig.tar.gz
tar xf leveldb_1.23-4.debian.tar.xz -C leveldb-1.23
(cd leveldb-1.23 && while read -r patch; do
   [[ -z $patch || $patch == \#* ]] && continue
   patch -s -p1 < "debian/patches/$patch"
 done < debian/patches/series)
cmake -S leveldb-1.23 -B leveldb-1.23/build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_SHARED_LIBS=ON \
  -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build leveldb-1.23/build -j2 >/dev/null
mkdir -p leveldb-release
cp -P leveldb-1.23/build/libleveldb.so* leveldb-release/
echo "build_reference_leveldb: $cache/leveldb-release ($(ls leveldb-release | tr '\n' ' '))"
