#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The core and backends must build for 32-bit x86 without libgcc helpers
# (__udivdi3, __umoddi3, __popcountdi2, __atomic_*_8, ...): neither Xen nor
# the Linux kernel links libgcc.  Compile every src/core, src/arch file
# freestanding against the freestanding env header at the optimisation
# levels kernels use, combine them and list what is left undefined.
#
# usage: test/cross/check-no-libgcc.sh [WORK_DIR]
set -eu

die() {
	echo "no-libgcc: $*" >&2
	exit 1
}

src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$src/build-cross-i686/no-libgcc}
cc=i686-linux-gnu-gcc
ld=i686-linux-gnu-ld
nm=i686-linux-gnu-nm

"$src/tools/install-deps.sh" cross ||
	die "cross toolchains missing: run 'tools/install-deps.sh cross' as root"
for t in $cc $ld $nm; do
	command -v $t >/dev/null || die "$t not found (tools/install-deps.sh cross)"
done

files=$(ls "$src"/src/core/*.c "$src"/src/arch/*/*.c 2>/dev/null || true)
[ -n "$files" ] || die "no sources under src/core, src/arch"
# Routines a host may provide that gcc emits for struct copies.
allowed='^(memcpy|memset|memmove|memcmp)$'
fail=0
mkdir -p "$work"

# The check must see a helper when one is needed: a canary that divides.
printf 'unsigned long long f(unsigned long long a, unsigned long long b)\n{ return a / b; }\n' \
	> "$work/canary.c"
$cc -O2 -m32 -march=i686 -ffreestanding -nostdinc -c "$work/canary.c" -o "$work/canary.o"
$nm -u "$work/canary.o" | grep -q __udivdi3 || die "canary: __udivdi3 not detected"

for opt in -O2 -Os -O1; do
	dir=$work/obj$opt
	rm -rf "$dir" && mkdir -p "$dir"
	objs=
	for f in $files; do
		o=$dir/$(basename "$(dirname "$f")")-$(basename "$f" .c).o
		$cc $opt -m32 -march=i686 -ffreestanding -nostdinc -fno-builtin \
			-fno-stack-protector -fno-pic -Wall -Werror=implicit-function-declaration \
			-DPMUVIRT_HAVE_ENV=1 -DPMUVIRT_CORE_BUILD=1 -I"$src/src/glue/freestanding" -I"$src/src/core" \
			-I"$src/src/arch" -I"$src/include" -c "$f" -o "$o" ||
			die "$f does not build freestanding for i686 ($opt)"
		objs="$objs $o"
	done
	$ld -m elf_i386 -r -o "$dir/all.o" $objs || die "partial link failed ($opt)"
	undef=$($nm -u "$dir/all.o" | awk '{ print $NF }' | sort -u)
	bad=$(printf '%s\n' $undef | grep -Ev "$allowed" || true)
	if [ -n "$bad" ]; then
		echo "no-libgcc: $opt: undefined symbols (libgcc helpers or host calls):" >&2
		for s in $bad; do
			echo "  $s in: $($nm -A -u $objs | grep -w "$s" | sed 's|.*/||; s|:.*||' | tr '\n' ' ')" >&2
		done
		fail=1
	else
		echo "no-libgcc: $opt: $(echo $files | wc -w) files, no libgcc helpers" \
			"(undefined: $(echo $undef | tr '\n' ' '))"
	fi
done
[ "$fail" = 0 ] || die "FAIL: the core needs libgcc on i686 (64-bit division or similar)"
echo "no-libgcc: PASS"
