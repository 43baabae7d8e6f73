#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Build the concurrency stress test with ThreadSanitizer and run it.
# usage: test/stress/run.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-tsan}
cc=${CC:-cc}
mkdir -p "$build"
$cc -std=gnu11 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -Wall -Wno-unused-parameter -Wno-tsan \
	-DPMUVIRT_HAVE_ENV=1 -I"$src/include" -I"$src/src/core" -I"$src/src/arch" \
	-I"$src/src/glue/user" -I"$src/tools/fakehw" \
	"$src"/src/core/*.c "$src"/src/arch/x86/*.c "$src"/tools/fakehw/*.c \
	"$src/test/stress/stress.c" -o "$build/stress" -lpthread
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$build/stress"
