#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Build the fuzz targets with clang (ASan, UBSan, libFuzzer) in build-fuzz
# and run one for a bounded time on a copy of its seed corpus.
# usage: test/fuzz/run.sh TARGET [SECONDS]
set -eu
target=$1
secs=${2:-30}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${PMUVIRT_FUZZ_BUILD_DIR:-$src/build-fuzz}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

mkdir -p "$build"
(
	flock 9
	CC=clang cmake -S "$src" -B "$build" -DPMUVIRT_FUZZ_BUILD=ON \
		-DPMUVIRT_TOOLS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $san" \
		-DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
	cmake --build "$build" --target "$target" -j2 >/dev/null
) 9>"$build/.lock"

work="$build/corpus-$target"
mkdir -p "$work"
[ -d "$src/test/fuzz/corpus/$target" ] && cp -n "$src/test/fuzz/corpus/$target"/* "$work"/ 2>/dev/null || true
cd "$build"
exec "$build/test/fuzz/$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work"
