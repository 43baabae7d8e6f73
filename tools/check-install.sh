#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Install the library into a scratch prefix, then build a small program
# against it twice: with find_package(pmuvirt) and with pkg-config.
# usage: check-install.sh BUILD_DIR
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mkdir "$tmp/app"
cat > "$tmp/app/main.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <pmuvirt/pmuvirt.h>
#include <pmuvirt/user.h>
int main(void)
{
	if (pmuvirt_ctx_size(8) == 0 || pmuvirt_ctx_size(99) != 0)
		return 1;
	puts(pmuvirt_strerror(-ENOSPC));
	return 0;
}
C
cat > "$tmp/app/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(pmuvirt REQUIRED)
add_executable(app main.c)
target_link_libraries(app pmuvirt::pmuvirt)
C
cmake -S "$tmp/app" -B "$tmp/app/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/app/b" >/dev/null
"$tmp/app/b/app" >/dev/null
pc=$(find "$tmp/prefix" -name pmuvirt.pc)
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs pmuvirt)
cc "$tmp/app/main.c" $flags -o "$tmp/app/app2"
"$tmp/app/app2" >/dev/null
echo "install: find_package and pkg-config consumers build and run"
