#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Build the powernv hypervisor image (hv.c: pmuvirt's POWER backend serving
# H_PERFMON and counters to three guest domains through real sc 1
# hypervisor calls) and its guest image, and boot them on QEMU 10's
# powernv8 machine under skiboot.  Passes only when QEMU exits 0 (OPAL
# power-off) and the console shows the pass marker.
#
# usage: test/qemu-pnv/run-qemu-pnv.sh [BUILD_DIR [QEMU10_DIR]]
#        QEMU10_DIR defaults to BUILD_DIR/qemu10 (the qemu-ppc job's can be
#        shared: test/qemu-ppc/qemu10.sh fetches it once).
# env:   QPNV_RUNS    boots (default 1)
#        QPPC_TIMEOUT seconds per boot (default 120)
#        QPPC_CFLAGS  extra compiler flags (-DQPPC_FORCE_FAIL checks the
#                     failure path: QEMU must then exit 1)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
shared=$src/test/qemu-ppc
build=${1:-$src/build-qemu-pnv}
q10dir=${2:-}
tmo=${QPPC_TIMEOUT:-120}
runs=${QPNV_RUNS:-1}

. "$shared/image.sh"
image_start qemu-pnv "$src"
command -v timeout >/dev/null || image_die "timeout not found"

# ---- build ----------------------------------------------------------------
mkdir -p "$build/obj-guest" "$build/obj-hv"
build=$(cd "$build" && pwd)
rm -f "$build"/obj-guest/*.o "$build"/obj-hv/*.o
image_setup "$src"
image_cc "$build/obj-guest" "-I$here" "$shared/start.S" "$shared/board.c" \
	"$shared/hvterm.c" "$here/guest.c"
image_link "$build/guest.elf" $image_objs
$image_cross-objcopy -O binary "$build/guest.elf" "$build/guest.bin" || image_die "objcopy failed"
image_objs=
image_lib "$build/obj-hv"
image_cc "$build/obj-hv" "-DQPPC_HV=1 -I$here -Wa,-I$build" "$shared/start.S" \
	"$shared/board.c" "$shared/spr.c" "$here/opal.c" "$here/hventry.S" "$here/hv.c" \
	"$here/guestblob.S"
image_link "$build/hv.elf" $image_objs $image_lib_objs
echo "qemu-pnv: built $build/hv.elf ($(echo $image_lib_objs | wc -w) library files) and" \
	"$build/guest.bin ($(wc -c <"$build/guest.bin") bytes)"

# ---- QEMU 10 (bookworm-backports): 7.2 raises no performance monitor
# interrupt, and its powernv machine stops under -icount ----------------------
. "$shared/qemu10.sh"
q10dir=${q10dir:-$build/qemu10}
fetch_qemu10 "$src" "$q10dir" || image_die "cannot fetch QEMU 10 from bookworm-backports (see $q10dir/*.log, $q10dir/apt/update.log)"
q10=$q10dir/root
echo "qemu-pnv: $("$q10/usr/bin/qemu-system-ppc64" --version | head -n 1)"

# ---- boot -----------------------------------------------------------------
fail=0
i=1
while [ "$i" -le "$runs" ]; do
	log=$build/console-$i.log
	rc=0
	timeout "$tmo" "$q10/usr/bin/qemu-system-ppc64" -L "$q10/usr/share/qemu" \
		-M powernv8 -m 1G -smp 1 -icount shift=0 \
		-nodefaults -nographic -serial stdio -monitor none \
		-device ipmi-bmc-sim,id=bmc0 -device isa-ipmi-bt,bmc=bmc0,irq=10 \
		-action panic=exit-failure -no-reboot \
		-kernel "$build/hv.elf" </dev/null >"$log" 2>&1 || rc=$?
	grep -v '^\[ *[0-9.]*,[0-9]\]' "$log" | sed "s|^|[run $i] |"
	if image_verdict qemu-pnv "run $i" "$rc" "$log" "$tmo"; then
		echo "qemu-pnv: run $i: PASS"
	else
		fail=1
	fi
	i=$((i + 1))
done
[ "$fail" = 0 ] || image_die "FAIL"
echo "qemu-pnv: PASS ($runs boot(s))"
