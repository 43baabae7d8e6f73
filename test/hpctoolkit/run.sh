#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# HPCToolkit on pmuvirt (label hpctoolkit): build PAPI with the pmuvirt
# component (papi/build.sh) and hpc_split, then boot one guest image twice
# at once, each under QEMU with -icount shift=0 on one CPU, as the papi
# and tau jobs do:
#   native  Debian's kernel, pmuvirt.ko on its own emulated PMU;
#   xen     the same kernel as Xen's PV dom0 on Xen's emulated PMU.
# Each runs hpc_split under `hpcrun -e PAPI_TOT_CYC@PERIOD`; here on the
# host `hpcstruct` and `hpcprof` turn the measurements into a database,
# which HPCToolkit's own reader must show with hot_a's inclusive cycles
# three times hot_b's within 3% (docs/papi.md, "HPCToolkit").
# usage: run.sh SOURCE_DIR BUILD_DIR [XEN_BUILD_DIR]
#   XEN_BUILD_DIR defaults to BUILD_DIR/xen.   exit 0 pass, 1 fail, 77 skipped
# Environment: HPCTOOLKIT (an HPCToolkit install made by
#              tools/hpctoolkit/build.sh; the test is skipped without it),
#              PMUVIRT_HPC_BOOTS ("native xen" by default),
#              PMUVIRT_VM_TIMEOUT (seconds of QEMU CPU time per boot, default 900)
set -eu
vm_name=hpctoolkit
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$1" "$2"
xen_build=${3:-$out/xen}
vm_boots PMUVIRT_HPC_BOOTS
[ -n "${HPCTOOLKIT:-}" ] ||
	skip "HPCTOOLKIT is not set: give it an HPCToolkit install made by tools/hpctoolkit/build.sh"
hpctk=$(cd "$HPCTOOLKIT" && pwd)
for _t in bin/hpcrun bin/hpcstruct bin/hpcprof; do
	[ -x "$hpctk/$_t" ] || die "HPCTOOLKIT=$hpctk has no $_t"
done
hpclib=$hpctk/lib/x86_64-linux-gnu
[ -f "$hpclib/libhpcrun.so" ] || die "HPCTOOLKIT=$hpctk has no lib/x86_64-linux-gnu/libhpcrun.so"
pypath=$hpctk/share/hpctoolkit/python
[ -d "$pypath/hpctesttool/formats" ] ||
	die "HPCTOOLKIT=$hpctk has no share/hpctoolkit/python/hpctesttool (tools/hpctoolkit/build.sh's step hpctesttool installs it)"
python=/usr/bin/python3
"$python" -c 'import ruamel.yaml' 2>/dev/null ||
	die "HPCToolkit's database reader needs ruamel.yaml: apt-get install -y python3-ruamel.yaml"

vm_papi_ready

echo "hpctoolkit: building hpc_split"
mkdir -p "$out/prog"
prog=$out/prog/hpc_split
gcc -g -O1 -Wall -Wextra -Werror -o "$prog" "$src/test/hpctoolkit/hpc_split.c" ||
	die "hpc_split build"

echo "hpctoolkit: building the guest image"
vm_root "$src/test/hpctoolkit/init.sh" /bin/busybox
# hpcrun and its libraries, and the program, at their host paths: hpcrun
# finds its libraries beside itself, and the measurements name the
# program and libraries as hpcstruct and hpcprof find them here.
mkdir -p "$root$hpctk/bin" "$root$hpctk/lib" "$root$(dirname "$prog")"
cp "$hpctk/bin/hpcrun" "$root$hpctk/bin/"
cp -a "$hpclib" "$root$hpctk/lib/"
[ -d "$hpctk/libexec" ] && cp -a "$hpctk/libexec" "$root$hpctk/"
cp "$prog" "$root$prog"
vm_papi_libs "$prefix" "$prefix/lib:$hpctk/lib" "$hpctk/bin/hpcrun" "$hpclib"/*.so "$prog"
# hpcrun's auditor (LD_AUDIT) loads libc in a namespace of its own, whose
# NEEDED ld-linux-x86-64.so.2 is looked up by name in the system folders
mkdir -p "$root/lib/x86_64-linux-gnu"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib/x86_64-linux-gnu/"
# 2.5 * 10^7 iterations of hot_b and 3 times as many of hot_a, 4 rounds,
# two instructions an iteration: 6 * 10^8 and 2 * 10^8 instructions of
# work, sampled every 500000 cycles (instructions, under -icount).  Few
# long rounds: under -icount the program and the sampling are both
# periodic, and with many short rounds the sample points lock onto a few
# phases of a round; then the sample that straddles each switch between
# the functions goes to the same side every round (with 100 rounds of
# 8 * 10^6 instructions, hot_b got 5% more samples than its share).
n=25000000 rounds=4 period=500000
work_a=$((2 * 3 * n * rounds)) work_b=$((2 * n * rounds))
echo "$hpctk/bin/hpcrun $prog $n $rounds $period" >"$root/hpc-args.txt"
vm_pack

echo "hpctoolkit: hpcstruct of hpc_split"
"$hpctk/bin/hpcstruct" -o "$out/prog/hpc_split.hpcstruct" "$prog" >"$out/prog/hpcstruct.log" 2>&1 ||
	{ cat "$out/prog/hpcstruct.log"; die "hpcstruct"; }

secs=${PMUVIRT_VM_TIMEOUT:-900}
if has_boot xen; then
	echo "hpctoolkit: building Xen with pmuvirt"
	vm_xen "$xen_build"
fi
echo "hpctoolkit: booting: $boots"
vm_boot_both "$boots" "$secs" pmuvirt_hpc_xen

# judge NAME LOG: the measurements hpcrun wrote in that boot, through
# hpcprof with hpc_split's structure: hot_a's inclusive PAPI_TOT_CYC over
# hot_b's must be 3 within 3%, and each its function's work within -1%
# and +6%: PAPI_TOT_CYC counts the user mode, so the cycles of hpcrun's
# own signal handler (about 16,000 a sample natively, 20,000 in dom0) use
# up part of every period, and each sample stands for less work than
# PERIOD cycles of the program.
result=0
judge() {
	_c=$out/$1-console.txt _m=$out/$1-meas _d=$out/$1-database
	vm_text "$2" "$_c"
	grep '^vm: ' "$_c" || true
	vm_guest_done "$1" "$_c" HPC-VM-DONE || { result=1; return; }
	grep -q '^vm: hpcrun exit 0' "$_c" || { echo "hpctoolkit: $1: hpcrun failed"; result=1; }
	vm_guest_clean "$1" "$_c" || result=1
	if [ "$1" = xen ]; then
		vm_guest_on_xen "$1" "$_c" || result=1
	fi
	rm -rf "$_m" "$_d" "$_m.tgz"
	_sum=$(sed -n 's/^HPC-MEAS-BEGIN: \([0-9a-f]*\)$/\1/p' "$_c")
	sed -n '/^HPC-MEAS-BEGIN: /,/^HPC-MEAS-END$/p' "$_c" | sed '1d;$d' | base64 -d >"$_m.tgz" 2>/dev/null || true
	if [ -z "$_sum" ] || [ "$(md5sum <"$_m.tgz" | cut -d' ' -f1)" != "$_sum" ]; then
		echo "hpctoolkit: $1: the measurements did not come out intact"
		result=1
		return
	fi
	mkdir -p "$_m"
	# GNU tar keeps every member inside $_m (no absolute names, no "..")
	tar -xzf "$_m.tgz" -C "$_m" --strip-components=1 --no-same-owner ||
		{ echo "hpctoolkit: $1: bad measurement archive"; result=1; return; }
	ls "$_m"/*.hpcrun >/dev/null 2>&1 || { echo "hpctoolkit: $1: no .hpcrun file"; result=1; return; }
	"$hpctk/bin/hpcprof" -S "$out/prog/hpc_split.hpcstruct" -o "$_d" "$_m" >"$out/$1-hpcprof.log" 2>&1 ||
		{ cat "$out/$1-hpcprof.log"; echo "hpctoolkit: $1: hpcprof failed"; result=1; return; }
	PYTHONPATH=$pypath "$python" "$src/test/hpctoolkit/db_split.py" "$_d" PAPI_TOT_CYC hot_a hot_b \
		>"$out/$1-split.txt" 2>&1 ||
		{ cat "$out/$1-split.txt"; echo "hpctoolkit: $1: reading the database failed"; result=1; return; }
	echo "hpctoolkit: $1: hpcprof's calling context tree, inclusive PAPI_TOT_CYC:"
	sed '/^hot_[ab] /d; s/^/    /' "$out/$1-split.txt"
	awk -v tag="hpctoolkit: $1" -v wa="$work_a" -v wb="$work_b" -v p="$period" '
		$1 == "hot_a" { a = $2 } $1 == "hot_b" { b = $2 }
		END { if (!a || !b) { print tag ": hot_a or hot_b has no samples"; exit 1 }
			r = a / b
			printf "%s: hot_a %d cycles (%d samples, %+.3f%% of its work) hot_b %d (%d, %+.3f%%) ratio %.4f (3 within 3%%)\n",
				tag, a, a / p, 100 * (a / wa - 1), b, b / p, 100 * (b / wb - 1), r
			ok = r >= 2.91 && r <= 3.09
			ok = ok && a >= 0.99 * wa && a <= 1.06 * wa && b >= 0.99 * wb && b <= 1.06 * wb
			exit !ok }' "$out/$1-split.txt" || result=1
}
has_boot native && judge native "$out/console.log"
has_boot xen && judge xen "$out/console-xen.log"
[ $result = 0 ] || die "see the consoles $out/*-console.txt and the databases $out/*-database"
echo "hpctoolkit: PASS"
