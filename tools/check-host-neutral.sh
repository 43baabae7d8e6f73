#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Prove host neutrality:
#  1. every core, arch and ABI-check (src/abi) source compiles with -ffreestanding -nostdinc against
#     the minimal env header alone (nothing from any host);
#  2. the objects need nothing from outside but memcpy/memset (which every
#     kernel provides and a compiler may emit for structure copies) and the
#     linker-defined .TOC. of 64-bit POWER ELFv2;
#  3. every public header compiles on its own, hosted and freestanding.
# usage: check-host-neutral.sh [CC]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cc=${1:-${CC:-cc}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
inc="-I$top/include -I$top/src/core -I$top/src/arch -I$top/src/glue/freestanding"
flags="-std=gnu11 -ffreestanding -nostdinc -fno-pic -O2 -Wall -Werror=implicit-function-declaration -DPMUVIRT_HAVE_ENV=1 -DPMUVIRT_CORE_BUILD=1"

n=0
for src in "$top"/src/core/*.c "$top"/src/arch/*/*.c "$top"/src/abi/*.c; do
	[ -e "$src" ] || continue
	obj="$tmp/$(echo "$src" | sed "s|$top/||; s|/|_|g").o"
	if ! $cc $flags $inc -c "$src" -o "$obj" 2>"$tmp/err"; then
		echo "NOT HOST-NEUTRAL: $src"; cat "$tmp/err"; fail=1; continue
	fi
	n=$((n + 1))
done
if [ "$n" -gt 0 ]; then
	undef=$(nm -u "$tmp"/*.o | awk 'NF == 2 { print $2 }' | sort -u)
	defined=$(nm --defined-only "$tmp"/*.o | awk 'NF == 3 { print $3 }' | sort -u)
	for sym in $undef; do
		case "$sym" in memcpy|memset|.TOC.) continue ;; esac
		echo "$defined" | grep -qx "$sym" && continue
		echo "EXTERNAL SYMBOL needed by core/arch code: $sym"; fail=1
	done
fi

h=0
for hdr in "$top"/include/pmuvirt/*.h; do
	name=$(basename "$hdr")
	# linux.h includes <linux/ioctl.h> outside pmuvirt's own build.
	case "$name" in linux.h) hosted_only=1 ;; *) hosted_only=0 ;; esac
	printf '#include <pmuvirt/%s>\n#include <pmuvirt/%s>\n' "$name" "$name" > "$tmp/h.c"
	if ! $cc -std=gnu11 -Wall -Werror -I"$top/include" -c "$tmp/h.c" -o "$tmp/h.o" 2>"$tmp/err"; then
		echo "HEADER NOT SELF-CONTAINED (hosted): $name"; cat "$tmp/err"; fail=1
	fi
	if [ "$hosted_only" = 0 ] && ! $cc $flags $inc -Werror -c "$tmp/h.c" -o "$tmp/h.o" 2>"$tmp/err"; then
		echo "HEADER NOT SELF-CONTAINED (freestanding): $name"; cat "$tmp/err"; fail=1
	fi
	h=$((h + 1))
done

[ "$fail" = 0 ] && echo "host-neutral: $n sources freestanding, $h headers self-contained"
exit $fail
