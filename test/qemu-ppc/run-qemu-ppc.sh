#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Build the bare-metal POWER test image (pmuvirt core + POWER backend on the
# real SPRs) and boot it on qemu-system-ppc64 -M pseries once per CPU model.
# Passes only when QEMU exits 0 (RTAS power-off) and the console shows the
# pass marker.
#
# usage: test/qemu-ppc/run-qemu-ppc.sh [BUILD_DIR]
# env:   QPPC_CPUS   CPU models to boot (default: power8 power9 power10)
#        QPPC_QEMU   qemu-system-ppc64 binary (default: Debian 12's, QEMU 7.2)
#        QPPC_QEMU10 1 (default): also boot on QEMU 10 from Debian's
#                    bookworm-backports, which raises the performance monitor
#                    interrupt; fetched once into BUILD_DIR/qemu10 without
#                    installing it.  0: skip.
#        QPPC_TIMEOUT seconds per boot (default 120)
#        QPPC_CFLAGS extra compiler flags (-DQPPC_FORCE_FAIL checks the
#                    failure path: QEMU must then exit 1)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build-qemu-ppc}
cpus=${QPPC_CPUS:-power8 power9 power10}
qemu=${QPPC_QEMU:-qemu-system-ppc64}
tmo=${QPPC_TIMEOUT:-120}

. "$here/image.sh"
image_start qemu-ppc "$src"
for t in $qemu timeout; do
	command -v $t >/dev/null || image_die "$t not found (tools/install-deps.sh qemu-ppc)"
done

# ---- build ----------------------------------------------------------------
mkdir -p "$build/obj"
build=$(cd "$build" && pwd)
rm -f "$build"/obj/*.o
image_setup "$src"
image_lib "$build/obj"
defs=
[ -n "$(ls "$src"/src/arch/ppc/*.c 2>/dev/null)" ] && defs="$defs -DQPPC_HAVE_PPC=1"
[ -n "$(ls "$src"/src/arch/pv/*.c 2>/dev/null)" ] && defs="$defs -DQPPC_HAVE_PV=1"
image_cc "$build/obj" "$defs" "$here/start.S" "$here/board.c" "$here/hvterm.c" \
	"$here/pseries.c" "$here/spr.c" "$here/main.c" "$here/pmuvirt_tests.c" "$here/stacked.c"
image_link "$build/image.elf" $image_objs $image_lib_objs
echo "qemu-ppc: built $build/image.elf from $(echo $image_lib_objs | wc -w) library files"

# ---- QEMU 10 (bookworm-backports), unpacked into the build directory -------
. "$here/qemu10.sh"

qemus="debian12"
if [ "${QPPC_QEMU10:-1}" = 1 ]; then
	fetch_qemu10 "$src" "$build/qemu10" || image_die "cannot fetch QEMU 10 from bookworm-backports (see $build/qemu10/*.log, $build/qemu10/apt/update.log); QPPC_QEMU10=0 skips it"
	qemus="$qemus backports"
fi

# ---- boot -----------------------------------------------------------------
fail=0
for which in $qemus; do
	if [ "$which" = backports ]; then
		set -- "$build/qemu10/root/usr/bin/qemu-system-ppc64" -L "$build/qemu10/root/usr/share/qemu"
		want=interrupt
	else
		set -- "$qemu"
		want=
	fi
	echo "qemu-ppc: $which: $("$@" --version | head -n 1)"
	for cpu in $cpus; do
		log=$build/console-$which-$cpu.log
		tag="$which/$cpu"
		rc=0
		timeout "$tmo" "$@" \
			-M pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off \
			-cpu "$cpu" -m 512M -smp 1 -icount shift=0 \
			-nodefaults -nographic -serial stdio -monitor none \
			-action panic=exit-failure -no-reboot \
			-kernel "$build/image.elf" </dev/null >"$log" 2>&1 || rc=$?
		sed "s|^|[$tag] |" "$log"
		if ! image_verdict qemu-ppc "$tag" "$rc" "$log" "$tmo"; then
			fail=1
		elif [ -n "$want" ] && grep -q "overflow: mode" "$log" &&
		     ! grep -q "overflow: mode $want" "$log"; then
			echo "qemu-ppc: $tag: overflows were not taken by $want" >&2
			fail=1
		else
			echo "qemu-ppc: $tag: PASS"
		fi
	done
done
[ "$fail" = 0 ] || image_die "FAIL"
echo "qemu-ppc: PASS ($qemus; $cpus)"
