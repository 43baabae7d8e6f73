#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# TAU on pmuvirt (label tau): build PAPI with the pmuvirt component
# (papi/build.sh) and TAU against it (-papi=) from the TAU source in
# TAU_SRC, build tau_split with TAU's API, and boot one guest image twice
# at once, each under QEMU with -icount shift=0 on one CPU, as the papi
# job does:
#   native  Debian's kernel, pmuvirt.ko on its own emulated PMU;
#   xen     the same kernel as Xen's PV dom0 on Xen's emulated PMU.
# Each runs tau_split with TAU_METRICS=PAPI_TOT_INS:PAPI_TOT_CYC; TAU's
# pprof, here on the host, must show hot_a's exclusive count three times
# hot_b's within 3% for both metrics (docs/papi.md, "TAU").
# usage: run.sh SOURCE_DIR BUILD_DIR [XEN_BUILD_DIR]
#   XEN_BUILD_DIR defaults to BUILD_DIR/xen.   exit 0 pass, 1 fail, 77 skipped
# Environment: TAU_SRC (TAU's source tree, github.com/UO-OACISS/tau2; the
#              test is skipped without it; it is copied, never modified),
#              PMUVIRT_TAU_BOOTS ("native xen" by default),
#              PMUVIRT_VM_TIMEOUT (seconds of QEMU CPU time per boot, default 900)
set -eu
vm_name=tau
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$1" "$2"
xen_build=${3:-$out/xen}
vm_boots PMUVIRT_TAU_BOOTS
[ -n "${TAU_SRC:-}" ] ||
	skip "TAU_SRC is not set: give it TAU's source tree (git clone --recursive https://github.com/UO-OACISS/tau2)"
[ -x "$TAU_SRC/configure" ] && [ -f "$TAU_SRC/include/TAU.h.default" ] ||
	die "TAU_SRC=$TAU_SRC is not TAU's source tree (no configure or include/TAU.h.default)"
TAU_SRC=$(cd "$TAU_SRC" && pwd)

vm_papi_ready

# TAU configures and builds in its source tree: a copy of TAU_SRC, made
# again when TAU_SRC, PAPI's prefix or this configuration change.
tau=$out/tau
tconf="-prefix=$tau -papi=$prefix -cc=gcc -c++=g++"
stamp="$TAU_SRC $tconf"
if [ "$(cat "$tau/.pmuvirt-stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "tau: building TAU from $TAU_SRC (logs in $out/tau-src)"
	start=$(date +%s)
	rm -rf "$out/tau-src" "$tau"
	cp -a "$TAU_SRC" "$out/tau-src"
	# shellcheck disable=SC2086
	(cd "$out/tau-src" && ./configure $tconf >"$out/tau-configure.log" 2>&1) ||
		{ tail -n 30 "$out/tau-configure.log"; die "TAU's configure (log $out/tau-configure.log)"; }
	(cd "$out/tau-src" && make -j "$(nproc)" install >"$out/tau-make.log" 2>&1) ||
		{ tail -n 30 "$out/tau-make.log"; die "TAU's build (log $out/tau-make.log)"; }
	echo "$stamp" >"$tau/.pmuvirt-stamp"
	echo "tau: TAU built in $(($(date +%s) - start)) s"
fi
arch=$(ls -d "$tau"/*/lib | head -n 1)
arch=${arch%/lib}
tmake=$(ls "$arch"/lib/Makefile.tau*papi* 2>/dev/null | head -n 1)
[ -n "$tmake" ] || die "no Makefile.tau-*papi* in $arch/lib"
pprof=$arch/bin/pprof
[ -x "$pprof" ] || die "no pprof in $arch/bin"
echo "tau: $(basename "$tmake"), TAU $(sed -n 's/.*Version \([0-9.]*\).*/\1/p' "$TAU_SRC/INSTALL" | head -n 1)"

echo "tau: building tau_split with TAU's API"
mkdir -p "$out/prog"
cat >"$out/prog/Makefile" <<MK
include $tmake
tau_split: $src/test/tau/tau_split.c
	\$(TAU_CC) \$(TAU_INCLUDE) \$(TAU_DEFS) -O2 -Wall -Wextra -Werror -c -o tau_split.o \$<
	\$(TAU_CXX) -o \$@ tau_split.o \$(TAU_LIBS) \$(TAU_LDFLAGS) \$(TAU_CXXLIBS)
MK
make -s -C "$out/prog" -B tau_split >"$out/prog/build.log" 2>&1 ||
	{ cat "$out/prog/build.log"; die "tau_split build"; }

echo "tau: building the guest image"
vm_root "$src/test/tau/init.sh" /bin/busybox
cp "$out/prog/tau_split" "$root/"
vm_papi_libs "$prefix" "$prefix/lib" "$root/tau_split"
# 10^6 iterations of hot_b and 3 * 10^6 of hot_a, 100 rounds, two
# instructions an iteration: 6 * 10^8 and 2 * 10^8 instructions of work
n=1000000 rounds=100
work_a=$((2 * 3 * n * rounds)) work_b=$((2 * n * rounds))
echo "$n $rounds" >"$root/tau-args.txt"
vm_pack

secs=${PMUVIRT_VM_TIMEOUT:-900}
if has_boot xen; then
	echo "tau: building Xen with pmuvirt"
	vm_xen "$xen_build"
fi
echo "tau: booting: $boots"
vm_boot_both "$boots" "$secs" pmuvirt_tau_xen

# judge NAME LOG: the profiles TAU wrote in that boot, read by pprof: for
# each metric hot_a's exclusive count over hot_b's must be 3 within 3%,
# and each count its function's work within -1% and +3% (TAU's own timer
# calls add to it; under icount both metrics count instructions).
result=0
judge() {
	_c=$out/$1-console.txt _p=$out/$1-profiles
	vm_text "$2" "$_c"
	grep '^vm: ' "$_c" || true
	vm_guest_done "$1" "$_c" TAU-VM-DONE || { result=1; return; }
	grep -q '^vm: tau_split exit 0' "$_c" || { echo "tau: $1: tau_split failed"; result=1; }
	vm_guest_clean "$1" "$_c" || result=1
	if [ "$1" = xen ]; then
		vm_guest_on_xen "$1" "$_c" || result=1
	fi
	rm -rf "$_p"
	mkdir -p "$_p"
	# the guest names the files: only TAU's own names (DIR/profile.N.N.N)
	awk -v dir="$_p" '
		/^TAU-PROFILE-BEGIN: / { f = ""
			if ($2 !~ /^([A-Za-z0-9_]+\/)?profile\.[0-9]+\.[0-9]+\.[0-9]+$/) next
			f = dir "/" $2; d = f; sub(/\/[^\/]*$/, "", d)
			system("mkdir -p \"" d "\""); next }
		/^TAU-PROFILE-END: / { close(f); f = ""; next }
		f != "" { print > f }' "$_c"
	for _m in PAPI_TOT_INS PAPI_TOT_CYC; do
		_d=$_p/MULTI__$_m
		if [ ! -f "$_d/profile.0.0.0" ]; then
			echo "tau: $1: no profile of $_m"
			result=1
			continue
		fi
		(cd "$_d" && "$pprof" -p -s) >"$_p/pprof-$_m.txt" 2>&1 || true
		(cd "$_d" && "$pprof" -d) >"$_p/pprof-d-$_m.txt" 2>&1 || true
		echo "tau: $1: pprof of $_m:"
		sed -n '/FUNCTION SUMMARY (total)/,/^$/p' "$_p/pprof-$_m.txt" | sed 's/^/    /'
		# pprof -d: 'N,C,T ID "NAME" excl VALUE PERCENT ...', the exact counts
		awk -v tag="tau: $1: $_m" -v wa="$work_a" -v wb="$work_b" '
			$1 == "0,0,0" && $3 == "\"hot_a\"" && $4 == "excl" { a = $5 }
			$1 == "0,0,0" && $3 == "\"hot_b\"" && $4 == "excl" { b = $5 }
			END { if (!a || !b) { print tag ": hot_a or hot_b missing"; exit 1 }
				r = a / b
				printf "%s: exclusive hot_a %d (%+.3f%% of its work) hot_b %d (%+.3f%%) ratio %.4f (3 within 3%%)\n",
					tag, a, 100 * (a / wa - 1), b, 100 * (b / wb - 1), r
				ok = r >= 2.91 && r <= 3.09
				ok = ok && a >= 0.99 * wa && a <= 1.03 * wa && b >= 0.99 * wb && b <= 1.03 * wb
				exit !ok }' "$_p/pprof-d-$_m.txt" || result=1
	done
}
has_boot native && judge native "$out/console.log"
has_boot xen && judge xen "$out/console-xen.log"
[ $result = 0 ] || die "see the consoles $out/*-console.txt and the profiles in $out/*-profiles"
echo "tau: PASS"
