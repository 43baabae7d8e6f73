#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Boot Xen with pmuvirt under QEMU (TCG, -icount shift=0) with Debian's
# kernel as a PV dom0, ten times in two sets.  With two dom0 VCPUs,
# as the hardware is (the TSC alone): pmuvirt_xen_test drives the
# hypercall, then pmuvirt.ko is loaded and pmuvirt_xen_guest checks
# per-thread counts on top of the VCPUs'.  With Xen's emulated PMU
# (pmuvirt-emulate): xen_emu_test checks PMC counting per VCPU and the
# PMI -> VIRQ path, and system-wide profiles (a full ring's losses
# counted, a ring drained by its high-water VIRQ alone).  With vpmu=1, and
# with the NMI watchdog: pmuvirt refuses to start, and its hypercall
# answers -EBUSY.  With one dom0 VCPU and the emulated PMU, on
# an AMD CPU model with SVM: Debian's toolstack (xl) creates a PV and a
# PVH domU from domu.cfg that run pmuvirt_xen_guest, vmtest imode and
# xen_access_test at once while dom0 spins, then xen_save_guest while dom0
# saves and restores each of them and migrates each to its own host, and
# report on their consoles; the same two domUs on two PCPUs while dom0
# moves their VCPUs between them and takes PCPU 1 offline and back.
#
# The stock set of boots (its own CTest test, vm-xen-stock, which can run
# beside the main set; the hvm boot is in it so that the two sets take
# about as long): on the domu boot's Xen, xl creates an HVM domU with
# QEMU as its device model (hvm.cfg) that runs pmuvirt_xen_guest and
# vmtest imode; dom0 makes a save of it fail with Xen's test instrument
# pmuvirt-fail-save, then saves and restores it during xen_save_guest.
# In the stock boot, Debian's kernel without pmuvirt.ko in a PVH and an
# HVM domU runs Linux's own `perf test`, and the HVM one PAPI's
# run_tests.sh on Debian's libpapi (the perf_event component), both on
# the PMU Xen's pmuvirt emulates for stock guests; judged against
# docs/xen.md and docs/papi.md.  Then that PMU turned off: for every
# domain by Xen's pmuvirt-vpmu=0 (vpmu-off), for one domain by its policy
# (policy-off); the guests must find no PMU.  Judged by console markers,
# not by QEMU's exit status.
#
# usage: test/vm-xen/run.sh [BUILD_DIR [SET]]  (default <source>/build-xen, main)
#   SET main: the real, emulated, refused, watchdog and domu boots; smp:
#   the smp boot (two emulated PCPUs: it needs both cores to itself);
#   stock: the hvm, stock, vpmu-off and policy-off boots.  Each set has
#   its own work directory (BUILD_DIR/vm-xen, BUILD_DIR/vm-xen-smp,
#   BUILD_DIR/vm-xen-stock), so they can run at once; they share the
#   builds in BUILD_DIR.
# Exit: 0 pass, 1 fail, 77 skipped (missing tools and not root).
# Environment: PMUVIRT_XEN_ITERATIONS (loop length per thread of the
#              hypercall test, default 5e7), PMUVIRT_XEN_GUEST_ITERATIONS
#              (the same for pmuvirt_xen_guest, default 5e7),
#              PMUVIRT_XEN_TIMEOUT (seconds of QEMU's CPU time per boot,
#              default 900; the stock set's 1800; vm_limited),
#              PMUVIRT_XEN_BOOTS (the boots of the set to run, default
#              all of them: "real emulated refused watchdog domu", "smp"
#              or "hvm stock vpmu-off policy-off"; the test passes only with
#              all), PMUVIRT_XEN_EMU_ARGS (more Xen options for the
#              emulated boot, e.g. timer_slop=0 for docs/sampling.md),
#              PMUVIRT_XEN_IMODE_REPEAT (the smp boot's domUs run
#              `vmtest imode` this many more times, each with the guest's
#              interrupt counts before and after; default 0),
#              PMUVIRT_XEN_PERF_TESTS (the stock boot's `perf test`
#              numbers, default the PMU's tests listed in docs/xen.md;
#              "all" runs the whole suite but the tests that crash QEMU;
#              the documented counts are not compared then),
#              PMUVIRT_XEN_PAPI_TESTS (the same for PAPI's tests: names
#              such as ctests/zero, or "all" for run_tests.sh).
set -eu

vm_name=vm-xen
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$(dirname "$0")/../.." "${1:-$(dirname "$0")/../../build-xen}"
srcroot=$src build=$out
cache=$build/cache
set_name=${2:-main}
case $set_name in
main) all_boots="real emulated refused watchdog domu" work=$build/vm-xen timeout_s=1800 ;;
smp) all_boots="smp" work=$build/vm-xen-smp timeout_s=900 ;;
stock) all_boots="hvm stock vpmu-off policy-off" work=$build/vm-xen-stock timeout_s=1800 ;;
*) echo "vm-xen: unknown set of boots '$set_name' (main, smp or stock)" >&2; exit 1 ;;
esac
iterations=${PMUVIRT_XEN_ITERATIONS:-50000000}
guest_iterations=${PMUVIRT_XEN_GUEST_ITERATIONS:-50000000}
timeout_s=${PMUVIRT_XEN_TIMEOUT:-$timeout_s}
# System-wide profiling: cycles sampled every prof_period (an odd number, so
# samples fall all over the hot loop's rounds of 8 * 100003 instructions).
prof_period=999983
prof_rounds=2500
prof_work_a=$((prof_rounds * 6 * 100003))
prof_work_b=$((prof_rounds * 2 * 100003))
lossy_rounds=500
lossy_work_a=$((lossy_rounds * 6 * 100003))
lossy_work_b=$((lossy_rounds * 2 * 100003))
domu_prof_period=7999993
# An HVM or PVH domU's kernel/user split under a session naming it alone:
# rounds of split_ticks TSC ticks in the kernel, 3 * split_ticks in user
# mode (1e9 ticks in all), sampled every split_period cycles (about 2,000
# records; an odd period, so that they fall all over the rounds).
split_ticks=2000000
split_rounds=125
split_period=499979
# The PV domU's call chains (chain_probe.ko): its leaf loop, 5 instructions
# an iteration, 3 * chain_iters from one caller and chain_iters from the
# other, twice: 8e8 instructions, about 1,600 records at split_period.
chain_iters=20000000
# The stock boot: seconds of guest time each `perf test` may take.
perf_test_limit=300
boots=${PMUVIRT_XEN_BOOTS:-$all_boots}
imode_repeat=${PMUVIRT_XEN_IMODE_REPEAT:-0}
case $imode_repeat in
''|*[!0-9]*) echo "vm-xen: PMUVIRT_XEN_IMODE_REPEAT: not a number: $imode_repeat" >&2; exit 1 ;;
esac
for b in $boots; do
	case " $all_boots " in
	*" $b "*) ;;
	*) echo "vm-xen: PMUVIRT_XEN_BOOTS: no boot '$b' in the $set_name set ($all_boots)" >&2; exit 1 ;;
	esac
done

log() { echo "vm-xen: $*" >&2; }

need="qemu-system-x86_64 busybox cpio gzip gcc make flex bison python3 dpkg-deb dpkg-source apt-get perf ldd"
if [ "$(id -u)" = 0 ]; then
	# the stock boot builds PAPI too
	deps=vm-xen
	[ "$set_name" = stock ] && deps="vm-xen papi"
	# shellcheck disable=SC2086
	"$srcroot/tools/install-deps.sh" $deps
fi
for t in $need; do
	if ! command -v "$t" >/dev/null 2>&1; then
		log "SKIP: $t missing and not root (run tools/install-deps.sh vm-xen as root)"
		exit 77
	fi
done
busybox=$(command -v busybox)
case "$(file -b "$busybox" 2>/dev/null || echo static)" in
*dynamic*) [ -x /bin/busybox ] && busybox=/bin/busybox ;;
esac

# The two sets share BUILD_DIR's builds and downloads: one at a time
# until its initramfs is packed.
exec 8>"$build/.vm-xen-prep.lock"
flock 8

# 1. The hypervisor with pmuvirt.
vm_xen "$build"

# 2. Debian's kernel, the version of the installed linux-headers-amd64 (the
# module is built against those headers), unpacked without install scripts.
fail() { log "FAIL: $*"; exit 1; }
. "$srcroot/test/vm-linux/kernel-image.sh"
vm_kernel_image "$build" fail
kmods=${vmlinuz%/boot/*}/lib/modules/$kver/kernel/drivers/xen

# pmuvirt.ko, built as test/vm-linux builds it.
log "building pmuvirt.ko for $kver"
make -s -C "$srcroot/src/glue/linux" BUILD="$build/module" KVER="$kver" >"$build/module.log" 2>&1 ||
	{ cat "$build/module.log" >&2; log "FAIL: module build"; exit 1; }
if grep -E "warning|error" "$build/module.log" >&2; then
	log "FAIL: the module build has warnings (above)"
	exit 1
fi

# rdpmc_probe.ko, for the domUs' check of rdpmc during the profiling session.
pdir=$build/rdpmc-probe
rm -rf "$pdir"
mkdir -p "$pdir"
ln -s "$srcroot/test/vm-xen/rdpmc_probe.c" "$pdir/"
echo 'obj-m := rdpmc_probe.o' >"$pdir/Kbuild"
make -s -C "/lib/modules/$kver/build" M="$pdir" ccflags-y="-I$srcroot/include" modules \
	>"$build/rdpmc-probe.log" 2>&1 || { cat "$build/rdpmc-probe.log" >&2; fail "rdpmc_probe.ko build"; }
# chain_probe.ko, for the PV domU's call chains: frame pointers, no sibling
# calls (Debian's kernel is built without frame pointers).
cdir=$build/chain-probe
rm -rf "$cdir"
mkdir -p "$cdir"
ln -s "$srcroot/test/vm-xen/chain_probe.c" "$cdir/"
printf 'obj-m := chain_probe.o\nccflags-y += -fno-omit-frame-pointer -fno-optimize-sibling-calls\n' \
	>"$cdir/Kbuild"
make -s -C "/lib/modules/$kver/build" M="$cdir" modules >"$build/chain-probe.log" 2>&1 ||
	{ cat "$build/chain-probe.log" >&2; fail "chain_probe.ko build"; }

# Debian's Xen toolstack for the domU boot, the version of the hypervisor's
# source when the archive still has it, unpacked without install scripts.
# fetch_debs DIR VERSION PKG...: the packages, at VERSION when the archive
# still has it, unpacked in DIR/root without install scripts, once.
fetch_debs() {
	_dir=$1 _ver=$2
	shift 2
	[ -e "$_dir/stamp" ] && return 0
	rm -rf "$_dir"
	mkdir -p "$_dir/deb"
	for _p in "$@"; do
		(cd "$_dir/deb" && { apt-get download -q "$_p=$_ver" >/dev/null 2>&1 ||
			apt-get download -q "$_p" >/dev/null 2>&1; }) || fail "apt-get download $_p"
	done
	for _d in "$_dir"/deb/*.deb; do
		dpkg-deb -x "$_d" "$_dir/root"
	done
	touch "$_dir/stamp"
}
want() { case " $boots " in *" $1 "*) return 0 ;; esac; return 1; }
# The boots with an HVM domU, which need the device model and the firmware.
want_hvm() { want hvm || want stock; }

xver=$(cat "$cache/xen-src.stamp")
tdir=$cache/toolstack-$xver
log "Xen's toolstack ($xver)"
fetch_debs "$tdir" "$xver" xen-utils-4.17 libxenmisc4.17 libxencall1 libxenevtchn1 \
	libxenforeignmemory1 libxengnttab1 libxenstore4 libxentoollog1 libxentoolcore1 \
	libxenhypfs1 libxendevicemodel1 libyajl2
# The hvm boot's device model: Debian's QEMU for Xen, the version of the
# host's QEMU (whose packages seabios and qemu-system-data give the firmware).
if want_hvm; then
	qver=$(dpkg-query -W -f '${Version}' qemu-system-x86)
	qdir=$cache/qemu-xen-$(echo "$qver" | tr : _)
	log "Xen's device model ($qver)"
	fetch_debs "$qdir" "$qver" qemu-system-xen
fi

# 3. The initramfs: busybox, the xen-privcmd and xenfs modules, the test.
# pack TREE ARCHIVE: a gzipped cpio of the tree.
pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}
rm -rf "$work"
mkdir -p "$work/root/bin" "$work/root/lib/modules" "$work/root/proc" "$work/root/sys" \
	"$work/root/dev" "$work/root/tmp"
cp "$busybox" "$work/root/bin/busybox"
for a in sh mount mkdir insmod rmmod cat grep echo reboot sleep dmesg tail cut sed kill ln du rm date; do
	ln -s busybox "$work/root/bin/$a"
done
for m in xen-privcmd.ko xen-evtchn.ko xenfs/xenfs.ko; do
	cp "$kmods/$m" "$work/root/lib/modules/" || { log "FAIL: $m not in $kver"; exit 1; }
done
gcc -O2 -Wall -Wextra -static -pthread -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/pmuvirt_xen_test" "$srcroot/test/vm-xen/pmuvirt_xen_test.c"
gcc -O2 -Wall -Wextra -static -pthread -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xen_emu_test" "$srcroot/test/vm-xen/xen_emu_test.c"
gcc -O2 -Wall -Wextra -Werror -static -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xen_domains_test" "$srcroot/test/vm-xen/xen_domains_test.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xen_policy_test" "$srcroot/test/vm-xen/xen_policy_test.c"
gcc -O2 -Wall -Wextra -Werror -static -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xen_access_test" "$srcroot/test/vm-xen/xen_access_test.c"
gcc -O2 -Wall -Wextra -Werror -static -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xenpmu_abi_test" "$srcroot/test/vm-xen/xenpmu_abi_test.c"
# System-wide profiling: the tool, its test, and the symbols the report
# reads (a static program's own: non-PIE, its file names its functions'
# addresses).  pmuvirt-report, which reads the tool's files, is built
# with the domU's tree below and copied into dom0's.
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xen_prof_test" "$srcroot/test/vm-xen/xen_prof_test.c"
xp=$srcroot/tools/pmuvirt-xenprof
rec=$srcroot/tools/pmuvirt-record
gcc -O2 -Wall -Wextra -Werror -static -I"$srcroot/include" -I"$srcroot/lib/user" -I"$srcroot/lib/xen" \
	-I"$rec" -o "$work/root/pmuvirt-xenprof" "$xp/pmuvirt-xenprof.c" "$xp/drain.c" \
	"$rec/profile-file.c" "$srcroot/lib/user/libpmuvirt-user.c"
gcc -O2 -Wall -Wextra -Werror -static -DPMUVIRT_HAVE_ENV=1 -I"$srcroot/include" -I"$srcroot/src/abi" \
	-I"$srcroot/src/core" -I"$srcroot/src/glue/user" -I"$srcroot/lib/xen" \
	-o "$work/root/pmuvirt-xenpolicy" "$srcroot/tools/pmuvirt-xenpolicy/pmuvirt-xenpolicy.c" \
	"$srcroot/src/abi/policy_text.c" "$srcroot/src/core/validate.c" "$srcroot/src/core/util.c"
objcopy --strip-debug "$(dirname "$xen")/xen-syms" "$work/root/xen-syms"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/user" \
	-o "$work/root/pmuvirt_xen_guest" "$srcroot/test/vm-xen/pmuvirt_xen_guest.c" \
	"$srcroot/lib/user/libpmuvirt-user.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/user" \
	-o "$work/root/vmtest" "$srcroot"/test/vm-linux/vmtest*.c \
	"$srcroot/lib/user/libpmuvirt-user.c"
gcc -O2 -Wall -Wextra -Werror -static -o "$work/root/xs_rendezvous" \
	"$srcroot/test/vm-xen/xs_rendezvous.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/user" \
	-o "$work/root/xen_save_guest" "$srcroot/test/vm-xen/xen_save_guest.c" \
	"$srcroot/lib/user/libpmuvirt-user.c"
cp "$build/module/pmuvirt.ko" "$work/root/lib/modules/"

# The domU's initramfs (inside dom0's): busybox, pmuvirt.ko and the guest
# tests, which run in the domU as in dom0 and report on its console.  The
# hvm boot's domain (pmuvirt_hvm on its command line) has no other domain
# to refuse and no profiling session; dom0 fails a save of it, then saves
# and restores it.
droot=$work/domu-root
mkdir -p "$droot/bin" "$droot/proc" "$droot/sys" "$droot/dev" "$droot/tmp"
cp "$busybox" "$droot/bin/busybox"
for a in sh mount umount mkdir insmod rmmod cat grep echo poweroff sleep dmesg sed awk head taskset; do
	ln -s busybox "$droot/bin/$a"
done
cp "$build/module/pmuvirt.ko" "$pdir/rdpmc_probe.ko" "$cdir/chain_probe.ko" \
	"$work/root/pmuvirt_xen_guest" "$work/root/vmtest" \
	"$work/root/xen_access_test" "$work/root/xen_save_guest" "$work/root/xs_rendezvous" \
	"$work/root/xen_prof_test" "$kmods/xen-privcmd.ko" "$kmods/xen-evtchn.ko" \
	"$work/root/pmuvirt-xenprof" "$droot/"
# the domU unpacks its root into its 192 MiB: no debug sections there
strip --strip-debug "$droot/pmuvirt.ko" "$droot/rdpmc_probe.ko" "$droot/chain_probe.ko"
gcc -O2 -Wall -Wextra -Werror -static -o "$droot/stock_perf_test" "$srcroot/test/vm-xen/stock_perf_test.c"
# Debian's perf (linux-perf) and every library it links, at their paths:
# the stock guests' own perf (stock_perf_test perf-stat, perf-record,
# perf-across).
# tree_libs TREE PROGRAM...: the libraries the programs link, at their
# paths in TREE (with LD_LIBRARY_PATH as the caller sets it).
tree_libs() {
	_tree=$1
	shift
	for _p in "$@"; do
		ldd "$_p" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'
	done | sort -u | while read -r _l; do
		mkdir -p "$_tree${_l%/*}"
		cp -L "$_l" "$_tree$_l"
	done
}
mkdir -p "$droot/usr/bin"
cp "$(command -v perf)" "$droot/usr/bin/perf"
tree_libs "$droot" "$(command -v perf)"
# pmuvirt-record (static), pmuvirt-report and a PIE of vmtest for them to
# profile in the domUs (test/vm-profile.sh), with the libraries they link
pflags="-O2 -Wall -Wextra -Werror -I$srcroot/include -I$srcroot/lib/user -I$rec"
gcc $pflags -static -o "$droot/pmuvirt-record" "$rec/pmuvirt-record.c" "$rec/profile-file.c" \
	"$srcroot/lib/user/libpmuvirt-user.c" || die "pmuvirt-record build"
gcc $pflags -o "$droot/pmuvirt-report" "$rec/pmuvirt-report.c" "$rec/report.c" "$rec/symbols.c" \
	"$rec/session.c" "$rec/profile-file.c" $(pkg-config --libs libdw) || die "pmuvirt-report build"
gcc $pflags -fPIE -pie -pthread -o "$droot/vmtest-pie" "$srcroot"/test/vm-linux/vmtest*.c \
	"$srcroot/lib/user/libpmuvirt-user.c" || die "vmtest-pie build"
tree_libs "$droot" "$droot/pmuvirt-report" "$droot/vmtest-pie"
cp "$srcroot/test/vm-profile.sh" "$droot/"
cp "$srcroot/test/vm-xen/domu-init.sh" "$droot/init"
printf 'guest_iterations=%s\nsplit_ticks=%s\nsplit_rounds=%s\nchain_iters=%s\n' "$guest_iterations" \
	"$split_ticks" "$split_rounds" "$chain_iters" >"$droot/vm-xen.conf"
chmod +x "$droot/init"
mkdir -p "$work/root/domu" "$work/root/etc/xen"
pack "$droot" "$work/root/domu/initrd.cpio.gz"
cp "$vmlinuz" "$work/root/domu/vmlinuz"
cp "$srcroot/test/vm-xen/domu.cfg" "$work/root/etc/xen/"
: >"$work/root/etc/xen/xl.conf"

# dom0's toolstack: xl, the C xenstored, xenconsoled, xen-init-dom0,
# libxl-save-helper, the libraries they link (ldd, the unpacked ones
# first) and libgcc_s, which glibc loads at run time for thread
# cancellation (xl aborts without it).
tbin=$tdir/root/usr/lib/xen-4.17/bin
tlib=$tdir/root/usr/lib/x86_64-linux-gnu
# copy_libs TREE PROGRAM...: the libraries the programs link into TREE,
# but those dom0's tree has.
copy_libs() {
	_tree=$1
	shift
	for _b in "$@"; do
		LD_LIBRARY_PATH=$tlib ldd "$_b" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'
	done | sort -u | while read -r _l; do
		case $_l in
		*/ld-linux*) _d=lib64 ;;
		*) _d=lib/x86_64-linux-gnu ;;
		esac
		[ -e "$work/root/$_d/${_l##*/}" ] && continue
		mkdir -p "$_tree/$_d"
		cp -L "$_l" "$_tree/$_d/"
	done
}
mkdir -p "$work/root/usr/bin" "$work/root/usr/lib/xen-4.17/bin"
# xl save and restore run libxl-save-helper from where Debian installs it.
# xen-hptool takes a PCPU offline and back (the smp boot).
for b in xl xenstored xenconsoled xen-init-dom0 libxl-save-helper xen-hptool; do
	case $b in
	libxl-save-helper) to=$work/root/usr/lib/xen-4.17/bin ;;
	*) to=$work/root/usr/bin ;;
	esac
	cp "$tbin/$b" "$to/" || { log "FAIL: $b not in the toolstack"; exit 1; }
done
copy_libs "$work/root" "$work/root/usr/bin/"* "$work/root/usr/lib/xen-4.17/bin/libxl-save-helper"
gcc_s=$(gcc -print-file-name=libgcc_s.so.1)
[ -f "$gcc_s" ] || gcc_s=/lib/x86_64-linux-gnu/libgcc_s.so.1
cp -L "$gcc_s" "$work/root/lib/x86_64-linux-gnu/"
[ -e "$work/root/lib64/ld-linux-x86-64.so.2" ] || { log "FAIL: no dynamic loader for the toolstack"; exit 1; }
# pmuvirt-report for dom0's sessions (pmuvirt-xenprof's files)
cp "$droot/pmuvirt-report" "$work/root/"
copy_libs "$work/root" "$work/root/pmuvirt-report"
for m in xen-gntdev.ko xen-gntalloc.ko; do
	cp "$kmods/$m" "$work/root/lib/modules/" || { log "FAIL: $m not in $kver"; exit 1; }
done
# dom0's own Debian perf (the emulated and domu boots): perf, its libraries and the test.
cp "$(command -v perf)" "$work/root/usr/bin/perf"
copy_libs "$work/root" "$work/root/usr/bin/perf"
cp "$droot/stock_perf_test" "$work/root/"
# The hvm boot's additions, in a second archive (the other boots do without):
# the device model where Debian's libxl runs it, its libraries, hvmloader,
# SeaBIOS and QEMU's option ROMs at the paths QEMU and libxl look in.
if want_hvm; then
	hroot=$work/hvm-root
	mkdir -p "$hroot/usr/libexec" "$hroot/usr/lib/xen-4.17/boot" "$hroot/usr/share/seabios" \
		"$hroot/usr/share/qemu/keymaps" "$hroot/etc/xen"
	cp "$qdir/root/usr/libexec/xen-qemu-system-i386" "$hroot/usr/libexec/" ||
		fail "no xen-qemu-system-i386 in qemu-system-xen"
	copy_libs "$hroot" "$hroot/usr/libexec/xen-qemu-system-i386"
	cp "$tdir/root/usr/lib/xen-4.17/boot/hvmloader" "$hroot/usr/lib/xen-4.17/boot/" ||
		fail "no hvmloader in the toolstack"
	for f in seabios/bios-256k.bin seabios/vgabios-stdvga.bin qemu/linuxboot_dma.bin \
		qemu/linuxboot.bin qemu/kvmvapic.bin qemu/keymaps/en-us; do
		cp "/usr/share/$f" "$hroot/usr/share/$f" || fail "/usr/share/$f missing (seabios, qemu-system-data)"
	done
	cp "$srcroot/test/vm-xen/hvm.cfg" "$hroot/etc/xen/"
fi
# The same initramfs serves all boots (the hvm boot's with more files):
# the dom0 command line says which.  The values dom0's init takes from here:
cat >"$work/root/vm-xen.conf" <<CONF
iterations=$iterations
guest_iterations=$guest_iterations
prof_period=$prof_period
prof_rounds=$prof_rounds
prof_work_a=$prof_work_a
prof_work_b=$prof_work_b
lossy_rounds=$lossy_rounds
lossy_work_a=$lossy_work_a
lossy_work_b=$lossy_work_b
domu_prof_period=$domu_prof_period
split_period=$split_period
CONF
cp "$srcroot/test/vm-xen/dom0-init.sh" "$work/root/init"
chmod +x "$work/root/init"
cp "$srcroot/test/vm-xen/domu-run.sh" "$srcroot/test/vm-xen/smp-run.sh" \
	"$srcroot/test/vm-xen/split-run.sh" "$srcroot/test/vm-xen/active-run.sh" "$work/root/"
pack "$work/root" "$work/initrd.cpio.gz"
# The hvm and stock boots': the kernel unpacks the archives one after the other.
if want_hvm; then
	pack "$hroot" "$work/hvm-extra.cpio.gz"
	cat "$work/initrd.cpio.gz" "$work/hvm-extra.cpio.gz" >"$work/initrd-hvm.cpio.gz"
fi
# The stock boot's domU (both domains boot it): busybox, Debian's perf with
# its own tests (/usr/lib/perf-core), and the stock PAPI's tests on
# Debian's libpapi (papi/build.sh, PMUVIRT_PAPI_CONFIG=stock) with the
# libraries they link; no pmuvirt.ko and no program of this project but
# the time-limit wrapper of test/papi.
if want stock; then
	log "PAPI's tests on Debian's libpapi (papi/build.sh, PMUVIRT_PAPI_CONFIG=stock)"
	sprefix=$(PMUVIRT_PAPI_CONFIG=stock sh "$srcroot/papi/build.sh" "$build/papi-stock" \
		"$build/papi-stock/install" | tail -n 1) || fail "the stock PAPI build (logs in $build/papi-stock)"
	sroot=$work/stock-root
	mkdir -p "$sroot/bin" "$sroot/proc" "$sroot/sys" "$sroot/dev" "$sroot/tmp" "$sroot/stock" \
		"$sroot/usr/bin" "$sroot/usr/lib" "$sroot/papi/share" "$sroot/papi/harness"
	cp "$busybox" "$sroot/bin/busybox"
	cp "$srcroot/test/vm-xen/stock-init.sh" "$sroot/init"
	chmod +x "$sroot/init"
	cp "$(command -v perf)" "$sroot/usr/bin/perf"
	cp -a /usr/lib/perf-core "$sroot/usr/lib/"
	# What perf's tests run beside busybox: Debian's /bin/sh (dash: busybox's
	# shell would run its own applets before these), bash (the interpreter
	# of several shell tests), objdump ("Object code reading"), coreutils'
	# mktemp and rm (options busybox lacks) and a dynamically linked sleep
	# ("PERF_RECORD_* events" looks for its mmaps of libc and ld.so).
	for p in dash bash objdump mktemp rm sleep; do
		cp "$(command -v $p)" "$sroot/usr/bin/$p" || fail "no $p on the host"
	done
	ln -s /usr/bin/bash "$sroot/bin/bash"
	cp -a "$sprefix/bin" "$sprefix/lib" "$sroot/papi/"
	cp -a "$sprefix/share/papi" "$sroot/papi/share/"
	cp "$srcroot/test/papi/valgrind.sh" "$sroot/papi/harness/valgrind"
	chmod +x "$sroot/papi/harness/valgrind"
	# shellcheck disable=SC2046
	LD_LIBRARY_PATH=$sprefix/lib:$sprefix/share/papi/components/sde/tests/lib tree_libs "$sroot" \
		"$sroot"/usr/bin/* $(find "$sprefix/bin" "$sprefix/share/papi" -type f -perm -u+x -exec sh -c \
		'for f; do [ "$(head -c 4 "$f")" = "$(printf "\177ELF")" ] && echo "$f"; done' sh {} +)
	# the prefix's own libraries are in /papi/lib
	rm -rf "${sroot:?}$sprefix"
	# ctests/shlib opens libcrypt.so by that name (libcrypt-dev's link)
	crypt=/usr/lib/x86_64-linux-gnu/libcrypt.so
	[ -e "$crypt" ] && mkdir -p "$sroot${crypt%/*}" && cp -L "$crypt" "$sroot$crypt"
	# The perf tests: those that count or sample with the CPU's PMU
	# (docs/xen.md), or PMUVIRT_XEN_PERF_TESTS: numbers, or "all", the
	# whole suite but the tests that crash QEMU.
	perf test list 2>&1 | sed -n 's/^ *\([0-9][0-9]*\): .*/\1/p' >"$work/perf-tests-all.txt"
	[ -s "$work/perf-tests-all.txt" ] || fail "perf test list lists no test"
	doc_list "$srcroot/docs/xen.md" perf-test-excluded >"$work/perf-tests-excluded.txt"
	case ${PMUVIRT_XEN_PERF_TESTS:-} in
	"") doc_list "$srcroot/docs/xen.md" perf-test-run | sort -n >"$sroot/stock/perf-tests.txt" ;;
	all) grep -vxF -f "$work/perf-tests-excluded.txt" "$work/perf-tests-all.txt" >"$sroot/stock/perf-tests.txt" ;;
	*) echo "$PMUVIRT_XEN_PERF_TESTS" | tr ' ' '\n' | grep . >"$sroot/stock/perf-tests.txt" ;;
	esac
	[ -s "$sroot/stock/perf-tests.txt" ] || fail "no perf test to run"
	doc_list "$srcroot/docs/papi.md" papi-excluded |
		sort -u >"$sroot/stock/papi-excluded.txt"
	# PAPI's tests: those docs/papi.md lists for the test command, or
	# PMUVIRT_XEN_PAPI_TESTS: names, or "all" (run_tests.sh).
	case ${PMUVIRT_XEN_PAPI_TESTS:-} in
	"") doc_list "$srcroot/docs/papi.md" papi-stock-run >"$sroot/stock/papi-tests.txt" ;;
	all) : >"$sroot/stock/papi-tests.txt" ;;
	*) echo "$PMUVIRT_XEN_PAPI_TESTS" | tr ' ' '\n' | grep . >"$sroot/stock/papi-tests.txt" ;;
	esac
	for t in $(cat "$sroot/stock/papi-tests.txt"); do
		[ -x "$sroot/papi/share/papi/$t" ] || fail "no PAPI test $t"
	done
	cat >"$sroot/stock/stock.conf" <<CONF
perf_test_limit=$perf_test_limit
papi_test_limit=${PMUVIRT_PAPI_TEST_LIMIT:-5}
CONF
	stockd=$work/stock-dom0
	mkdir -p "$stockd/domu"
	pack "$sroot" "$stockd/domu/stock.cpio.gz"
	pack "$stockd" "$work/stock-extra.cpio.gz"
	cat "$work/initrd-hvm.cpio.gz" "$work/stock-extra.cpio.gz" >"$work/initrd-stock.cpio.gz"
	log "the stock domUs' initramfs: $(du -m "$stockd/domu/stock.cpio.gz" | cut -f1) MiB"
fi
flock -u 8

# 4. Boot: one physical CPU, TSC = executed instructions.
# boot NAME XEN_OPTIONS DOM0_OPTIONS [CPU [INITRD]]: one run, console in
# $work/console-NAME.log
boot() {
	console=$work/console-$1.log
	log "booting Xen ($1, ${6:-1} PCPUs; log: $console)"
	# dom0's PV kernel has a PMU (XENPMU_*) where stock guests do: no NMI watchdog on it
	vm_qemu_xen "$console" "$timeout_s" "$2" "$3 nmi_watchdog=0" "${5:-$work/initrd.cpio.gz}" "${4:-}" "${6:-1}" >&2
	grep -a "pmuvirt\|PMUVIRT-XEN\|PMUVIRT-DOM\|PMUVIRT-ACTIVE\|^vm: \|: vm: \|^prof\|active: \|chain: " "$console" | sed 's/^(XEN) //' >&2 || true
}

# require MARKER...: every marker is on the console of the last boot, or FAIL.
require() {
	for m in "$@"; do
		grep -qa "$m" "$console" && continue
		log "missing on the console: $m"
		# what a guest or Xen said went wrong, wherever it is in the log
		grep -a "FAIL\|BUG\|WARNING\|Oops\|panic" "$console" | head -n 40 >&2
		log "the console's end:"
		tail -n 30 "$console" >&2
		log "FAIL"
		exit 1
	done
}

# require_domu PREFIX KIND [MARKER...]: the domU's guest tests passed on a
# pmuvirt.ko with backend "Xen KIND" (lines PREFIX...), and the MARKERs.
# at_once MARKER WHAT: the two domUs' "MARKER START END" windows on Xen's
# wall clock, which both read, overlap; else the boot fails.
at_once() {
	_what=$2
	set -- $(sed -n "s/.*domu-[ab]: $1 \([0-9.]*\) \([0-9.]*\).*/\1 \2/p" "$console" | tr -d '\r')
	if [ $# -ne 4 ] || ! awk -v a0="$1" -v a1="$2" -v b0="$3" -v b1="$4" \
		'BEGIN { lo = a0 > b0 ? a0 : b0; hi = a1 < b1 ? a1 : b1; exit !(lo < hi) }'; then
		log "FAIL: the two domUs' $_what did not run at once (wall clock windows: $*)"
		exit 1
	fi
	log "domu: the two domUs' $_what windows (wall clock): $1-$2 and $3-$4"
}

require_domu() {
	_p=$1 _k=$2
	shift 2
	require "$_p.*PMUVIRT-DOMU-UP cpus=2" "$_p""pmuvirt: backend: Xen $_k (" \
		"$_p""PMUVIRT-XEN-GUEST-VTSC-OK" "$_p""PMUVIRT-XEN-GUEST-MIGRATE-OK" \
		"$_p""PMUVIRT-XEN-GUEST-NOSYSCALL-OK" "$_p""PMUVIRT-XEN-GUEST-PASSED" \
		"$_p""PMUVIRT-DOMU-GUEST-EXIT=0" "$_p""vm: imode ok" "$_p""PMUVIRT-DOMU-IMODE-EXIT=0" \
		"$_p""vm: reap ok" "$_p""PMUVIRT-DOMU-REAP-EXIT=0" \
		"$_p""PMUVIRT-DOMU-UNLOADED" "$_p""PMUVIRT-DOMU-KERNEL-WARNINGS=0" \
		"$_p""PMUVIRT-DOMU-DONE" "$@"
}

# The hardware as it is: the TSC alone; the VCPU level, then pmuvirt.ko on it.
if want real; then
boot real "dom0_max_vcpus=2" ""
require "PMUVIRT-XEN-PASSED" "PMUVIRT-XEN-TEST-EXIT=0" \
	"PMUVIRT-XEN-GUEST-PASSED" "PMUVIRT-XEN-GUEST-EXIT=0" \
	"vm: reap ok" "PMUVIRT-XEN-GUEST-REAP-EXIT=0" \
	"pmuvirt: backend: Xen PV" "PMUVIRT-XEN-GUEST-UNLOADED" \
	"PMUVIRT-XEN-GUEST-KERNEL-WARNINGS=0" "PMUVIRT-XEN-EMPTY-OK" \
	"PMUVIRT-XEN-DOMAINS-PASSED" "PMUVIRT-XEN-DOMAINS-EXIT=0" \
	"PMUVIRT-XEN-POLICY-PASSED" "PMUVIRT-XEN-POLICY-EXIT=0" \
	"PMUVIRT-XEN-PROF-NOPMU-PASSED"
fi
# Xen's emulated PMU (a test instrument): PMC counting and the PMI -> VIRQ path.
if want emulated; then
boot emulated "dom0_max_vcpus=2 pmuvirt-emulate ${PMUVIRT_XEN_EMU_ARGS:-}" "pmuvirt_emulated_boot"
require "PMUVIRT-XEN-EMU-PASSED" "PMUVIRT-XEN-EMU-EXIT=0" \
	"PMUVIRT-XEN-PROF-RULES-PASSED" "PMUVIRT-XEN-PROF-RULES-EXIT=0" \
	"PMUVIRT-XEN-PROF-RECORD-EXIT=0" "PMUVIRT-XEN-PROF-REPORT-EXIT=0" \
	"PMUVIRT-XEN-PROF-SHARE-PASSED" "PMUVIRT-XEN-PROF-LOSSY-RECORD-EXIT=0" \
	"PMUVIRT-XEN-PROF-LOSSY-PASSED" "PMUVIRT-XEN-PROF-VIRQ-RECORD-EXIT=0" \
	"PMUVIRT-XEN-PROF-VIRQ-PASSED" \
	"PMUVIRT-XEN-EMU-GUEST-EXIT=0" "PMUVIRT-XEN-EMU-SAMPLE-EXIT=0" "PMUVIRT-XEN-EMU-GUEST-UNLOADED" \
	"PMUVIRT-XEN-EMU-GUEST-KERNEL-WARNINGS=0"
# Debian's perf in dom0, a PV kernel of an Intel model (QEMU's Nehalem)
# through XENPMU_* and the page's Intel context.
require "dom0: PMUVIRT-STOCK-PERF guest_type PV" \
	"dom0: PMUVIRT-STOCK-PERF-COUNT-OK" "dom0: PMUVIRT-STOCK-PERF-SAMPLE-OK" \
	"PMUVIRT-DOM0-STOCK-PERF-EXIT=0" "dom0: PMUVIRT-STOCK-PERF-STAT-OK" \
	"PMUVIRT-DOM0-STOCK-PERF-STAT-EXIT=0" "dom0: PMUVIRT-STOCK-PERF-RECORD-OK" \
	"PMUVIRT-DOM0-STOCK-PERF-RECORD-EXIT=0" \
	"pmuvirt: stock PV guests' PMU: Intel version 2, 2 general counters" \
	"pmuvirt: d0v0: XENPMU_init: emulated PMU, 2 counters, 1 fixed"
fi
# Xen's vPMU asked for: pmuvirt refuses to start and says so; dom0 checks
# the hypercall's answer and the boot ends there.
if want refused; then
boot refused "dom0_max_vcpus=2 vpmu=1" "pmuvirt_refused_boot"
require "pmuvirt: disabled: Xen's vPMU was asked for (vpmu=1)" \
	"PMUVIRT-XEN-REFUSED-OK" "PMUVIRT-XEN-REFUSED-EXIT=0"
fi
# The NMI watchdog asked for: pmuvirt refuses to start, as for the vPMU.
if want watchdog; then
boot watchdog "dom0_max_vcpus=1 watchdog" "pmuvirt_refused_boot"
require "pmuvirt: disabled: the NMI watchdog (watchdog) counts with a performance counter" \
	"PMUVIRT-XEN-REFUSED-OK" "PMUVIRT-XEN-REFUSED-EXIT=0"
fi
# A PV and a PVH domU made by xl, on Xen's emulated PMU, with a dom0 of one
# VCPU (two dom0 VCPUs on the one PCPU make every insmod in dom0 take
# seconds); PVH needs hardware virtualization, which QEMU's TCG offers as
# AMD's SVM, so the CPU model is an AMD one with SVM and nested paging.
if want domu; then
boot domu "dom0_max_vcpus=1 pmuvirt-emulate sched=credit" "pmuvirt_domu_boot" \
	"Nehalem,vendor=AuthenticAMD,+svm,+npt"
require "PMUVIRT-DOM0-XENSTORED" "PMUVIRT-DOM0-INIT-DOM0" "PMUVIRT-DOM0-XENCONSOLED" \
	"PMUVIRT-DOM0-CREATED a pv" "PMUVIRT-DOM0-CREATED b pvh" "PMUVIRT-DOM0-DOMIDS 1 2" \
	"PMUVIRT-XEN-ACCESS-DOM0-PASSED" "PMUVIRT-XEN-ACCESS-DOM0-EXIT=0" \
	"PMUVIRT-DOM0-GO a" "PMUVIRT-DOM0-GO b" "HVM: SVM enabled" "pmuvirt: HVM and PVH kernel mode: counted in SVM guest mode only" \
	"PMUVIRT-DOM0-SAVED a" "PMUVIRT-DOM0-RESTORED a" \
	"PMUVIRT-DOM0-SAVED b" "PMUVIRT-DOM0-RESTORED b" \
	"PMUVIRT-DOM0-MIGRATED a" "PMUVIRT-DOM0-MIGRATED b" \
	"PMUVIRT-XEN-PROF-DOMU-RECORD-EXIT=0" "PMUVIRT-XEN-PROF-DOMU-REPORT-EXIT=0" \
	"PMUVIRT-XEN-PROF-DOMUS-PASSED" \
	"domu-b: PMUVIRT-SPLIT-EXIT=0" "PMUVIRT-XEN-PROF-SPLIT-RECORD-EXIT=0" \
	"PMUVIRT-XEN-PROF-SPLIT-REPORT-EXIT=0" "PMUVIRT-XEN-SPLIT-CHECK-PASSED d2"
# Both domUs active in turn: each its own records only, split 1:3, the
# PV domU's rings mapped by machine frame, the PVH domU's placed by
# pmuvirt.ko; none of them in dom0's file.
require "PMUVIRT-XEN-PROF-ACTIVE-RECORD-EXIT=0" "PMUVIRT-XEN-PROF-ACTIVE-REPORT-EXIT=0" \
	"PMUVIRT-XEN-PROF-ACTIVE-DOM0-PASSED" "domu-a: PMUVIRT-ACTIVE-RECORD-EXIT=0" \
	"domu-a: PMUVIRT-ACTIVE-REPORT-EXIT=0" "domu-a: PMUVIRT-XEN-ACTIVE-CHECK-PASSED d1" \
	"domu-a: pmuvirt-xenprof: active: domain 1, 2 rings of .* (mapped by machine frame)" \
	"domu-b: PMUVIRT-ACTIVE-RECORD-EXIT=0" "domu-b: PMUVIRT-ACTIVE-REPORT-EXIT=0" \
	"domu-b: PMUVIRT-XEN-ACTIVE-CHECK-PASSED d2" "domu-b: PMUVIRT-XEN-DEVPERM-PASSED" \
	"domu-b: pmuvirt-xenprof: active: domain 2, 2 rings of .* (placed by pmuvirt.ko)"
# The session records call chains: the PV domU's kernel loop, reached from
# two callers 3:1, each leaf sample with its caller, no address of Xen's;
# none in the PVH domU's records.
require "domu-a: PMUVIRT-XEN-CHAIN-RUN cpu 1 iterations $chain_iters ticks .*: ok" \
	"domu-a: PMUVIRT-ACTIVE-FOLDED-EXIT=0" "domu-a: PMUVIRT-XEN-CHAIN-CHECK-PASSED d1" \
	"domu-b: PMUVIRT-ACTIVE-FRAMES d2: 0 records with frames"
for d in a:PV b:PVH; do
	k=${d#*:} d=${d%:*}
	require_domu "domu-$d: " "$k" "domu-$d: PMUVIRT-XEN-ACCESS-DOMU-PASSED" \
		"domu-$d: PMUVIRT-DOMU-ACCESS-EXIT=0" \
		"domu-$d: PMUVIRT-SAVE-BACK 2" "domu-$d: PMUVIRT-SAVE-PASSED" \
		"domu-$d: PMUVIRT-DOMU-SAVE-EXIT=0" \
		"domu-$d: PMUVIRT-RDPMC-PASSED" "domu-$d: PMUVIRT-STOCK-PERF-STAT-EXIT=0"
done
# pmuvirt-record and pmuvirt-report in the PV and the PVH domU: each
# thread's 3:1 split within 3%
require "domu-a: PMUVIRT-DOMU-PROFILE-EXIT=0" "domu-b: PMUVIRT-DOMU-PROFILE-EXIT=0"
# Debian's perf stat in the PVH domU, in the PV one and in dom0 (PV): the
# PV kernels' PMU through Xen's XENPMU_* ABI, their :u counts user and
# kernel work (a PV kernel runs in ring 3).
require "domu-b: PMUVIRT-STOCK-PERF-STAT-OK" "domu-a: PMUVIRT-STOCK-PERF guest_type PV" \
	"domu-a: PMUVIRT-STOCK-PERF-STAT-OK" "dom0: PMUVIRT-STOCK-PERF guest_type PV" \
	"dom0: PMUVIRT-STOCK-PERF-STAT-OK" "PMUVIRT-DOM0-STOCK-PERF-STAT-EXIT=0" \
	"PMUVIRT-XENPMU-ABI-PASSED" "PMUVIRT-DOM0-XENPMU-ABI-EXIT=0" \
	"dom0: PMUVIRT-STOCK-PERF-COUNT-OK" "dom0: PMUVIRT-STOCK-PERF-SAMPLE-OK" \
	"PMUVIRT-DOM0-STOCK-PERF-EXIT=0" "dom0: PMUVIRT-STOCK-PERF-RECORD-OK" \
	"PMUVIRT-DOM0-STOCK-PERF-RECORD-EXIT=0" \
	"pmuvirt: stock PV guests' PMU: the same, through XENPMU" \
	"pmuvirt: d0v0: XENPMU_init: emulated PMU, 4 counters" \
	"pmuvirt: d1v0: XENPMU_init: emulated PMU, 4 counters" \
	"pmuvirt: d1v1: XENPMU_init: emulated PMU, 4 counters"
# The two domUs' perf stat ran at once, each within its own work's bounds.
require "PMUVIRT-DOM0-PERF-GO a" "PMUVIRT-DOM0-PERF-GO b"
at_once PMUVIRT-STOCK-PERF-WINDOW "perf stat"
# The two domains' loops ran at once.
at_once PMUVIRT-XEN-GUEST-WINDOW loops
fi
# Two PCPUs (-smp 2; dom0 2 VCPUs, two domUs of 2): VCPUs move between
# PCPUs mid-loop, the session's interrupts cross PCPUs, PCPU 1 goes offline
# and back, with and without a session on it.
if want smp; then
boot smp "dom0_max_vcpus=2 pmuvirt-emulate sched=credit" \
	"pmuvirt_smp_boot pmuvirt_imode_repeat=$imode_repeat" \
	"Nehalem,vendor=AuthenticAMD,+svm,+npt" "" 2
require "(XEN) Brought up 2 CPUs" "PMUVIRT-DOM0-CREATED a pv" "PMUVIRT-DOM0-CREATED b pvh" \
	"PMUVIRT-DOM0-SMP-OFFLINE" "PMUVIRT-DOM0-SMP-ONLINE" \
	"PMUVIRT-XEN-PROF-SMP-RECORD-EXIT=0" "PMUVIRT-XEN-PROF-SMP-REPORT-EXIT=0" \
	"PMUVIRT-XEN-HP-OFFLINE-RECORD-EXIT=0" "PMUVIRT-XEN-HP-ONLINE-EXIT=0" \
	"PMUVIRT-XEN-HP-AGAIN-RECORD-EXIT=0" "PMUVIRT-XEN-HP-AGAIN-REPORT-EXIT=0" \
	"pmuvirt-tcg-intr-exit: [1-9][0-9]* exits"
for d in a:PV b:PVH; do
	k=${d#*:} d=${d%:*}
	_p="domu-$d: "
	require "$_p.*PMUVIRT-DOMU-UP cpus=2" "$_p""pmuvirt: backend: Xen $k (" \
		"$_p""PMUVIRT-XEN-GUEST-VTSC-OK" "$_p""PMUVIRT-XEN-GUEST-MIGRATE-OK" \
		"$_p""PMUVIRT-XEN-GUEST-PASSED" "$_p""PMUVIRT-DOMU-GUEST-EXIT=0" \
		"$_p""vm: imode ok" "$_p""PMUVIRT-DOMU-IMODE-EXIT=0" "$_p""PMUVIRT-DOMU-REAP-EXIT=0" \
		"$_p""PMUVIRT-DOMU-UNLOADED" "$_p""PMUVIRT-DOMU-KERNEL-WARNINGS=0" "$_p""PMUVIRT-DOMU-DONE"
done
# Each domU's VCPUs ran on both PCPUs during its loops; Xen saw no
# context left on a PCPU that went down.
for d in a b; do
	grep -aq "domu-$d: PMUVIRT-XEN-GUEST-PCPUS 0x3" "$console" ||
		{ log "FAIL: domU $d's VCPUs did not run on both PCPUs during the loops"; exit 1; }
done
if grep -a "went down with a VCPU's counters\|still runs the session's idle context\|lost its PMU with" "$console"; then
	log "FAIL: Xen found a context on a PCPU that went down (above)"
	exit 1
fi
log "smp: $(grep -a 'PMUVIRT-DOM0-SMP-PINS' "$console" | tr -d '\r')"
if [ "$imode_repeat" -gt 0 ]; then
	n=$(grep -ac "PMUVIRT-DOMU-IMODE-REPEAT-EXIT=0 " "$console" || true)
	log "smp: ${n:-0} of $((2 * imode_repeat)) repeated vmtest imode runs passed"
	[ "${n:-0}" = $((2 * imode_repeat)) ] || { log "FAIL: a repeated vmtest imode run failed or did not end (above)"; exit 1; }
fi
fi
# An HVM domU with QEMU as its device model, on the domu boot's Xen: the
# hvm boot's initramfs has the device model and the firmware.
if want hvm; then
boot hvm "dom0_max_vcpus=1 pmuvirt-emulate sched=credit" "pmuvirt_hvm_boot" \
	"Nehalem,vendor=AuthenticAMD,+svm,+npt" "$work/initrd-hvm.cpio.gz"
require "PMUVIRT-DOM0-XENSTORED" "PMUVIRT-DOM0-INIT-DOM0" "PMUVIRT-DOM0-XENCONSOLED" \
	"HVM: SVM enabled" "PMUVIRT-DOM0-HVM-CREATE-EXIT=0" \
	"PMUVIRT-DOM0-FAIL-SAVE-SET 1" "pmuvirt: d1v0: counters cannot be saved (-5): the save fails" \
	"PMUVIRT-DOM0-SAVE-FAILED hvm" "PMUVIRT-DOM0-FAIL-SAVE-LOGGED d1v0" \
	"PMUVIRT-DOM0-FAIL-SAVE-RUNNING" "PMUVIRT-DOM0-FAIL-SAVE-RESET" \
	"PMUVIRT-DOM0-SAVED hvm" "PMUVIRT-DOM0-RESTORED hvm" "PMUVIRT-DOM0-HVM-ENDED" \
	"hvm: PMUVIRT-SPLIT-EXIT=0" "PMUVIRT-XEN-PROF-SPLIT-RECORD-EXIT=0" \
	"PMUVIRT-XEN-PROF-SPLIT-REPORT-EXIT=0" "PMUVIRT-XEN-SPLIT-CHECK-PASSED d1"
require_domu "hvm: " HVM "hvm: PMUVIRT-DOMU-FAIL-SAVE-CANCELLED" \
	"hvm: PMUVIRT-SAVE-BACK 1" "hvm: PMUVIRT-SAVE-PASSED" "hvm: PMUVIRT-DOMU-SAVE-EXIT=0" \
	"pmuvirt: stock HVM and PVH guests' PMU: AMD version 1, 4 general counters" \
	"hvm: PMUVIRT-STOCK-PERF-COUNT-OK" "hvm: PMUVIRT-STOCK-PERF-SAMPLE-OK" \
	"hvm: PMUVIRT-STOCK-PERF-PASSED" "hvm: PMUVIRT-STOCK-PERF-EXIT=0" \
	"hvm: PMUVIRT-STOCK-PERF-STAT-OK" "hvm: PMUVIRT-STOCK-PERF-STAT-EXIT=0" \
	"hvm: PMUVIRT-STOCK-PERF-RECORD-OK" "hvm: PMUVIRT-STOCK-PERF-RECORD-EXIT=0" \
	"PMUVIRT-DOM0-HVM-POLICY-SET 1" "hvm: PMUVIRT-STOCK-PERF-POLICY-OK" \
	"PMUVIRT-DOM0-SAVED perf" "PMUVIRT-DOM0-RESTORED perf" "PMUVIRT-DOM0-PERF-RESTORED-TOLD" \
	"hvm: PMUVIRT-STOCK-PERF-ACROSS-OK" "hvm: PMUVIRT-STOCK-PERF-ACROSS-EXIT=0" \
	"hvm: PMUVIRT-DOMU-PROFILE-EXIT=0"
fi
# Stock guests: Debian's kernel without pmuvirt.ko as a PVH, then as an
# HVM domU, on the PMU Xen's pmuvirt emulates for them, on the domu boot's
# AMD CPU: Linux's perf test in both, PAPI's suite on Debian's libpapi in
# the HVM one, each judged against its documented failures, its floor of
# passes and its ceiling of skips.
if want stock; then
boot stock "dom0_max_vcpus=1 pmuvirt-emulate sched=credit" "pmuvirt_stock_boot" \
	"Nehalem,vendor=AuthenticAMD,+svm,+npt" "$work/initrd-stock.cpio.gz"
require "PMUVIRT-DOM0-XENCONSOLED" "HVM: SVM enabled" \
	"pmuvirt: stock HVM and PVH guests' PMU: AMD version 1, 4 general counters" \
	"PMUVIRT-DOM0-STOCK-CREATED stock-pvh" "PMUVIRT-DOM0-STOCK-ENDED stock-pvh" \
	"PMUVIRT-DOM0-STOCK-CREATED stock-hvm" "PMUVIRT-DOM0-STOCK-ENDED stock-hvm"
result=0
xdoc=$srcroot/docs/xen.md pdoc=$srcroot/docs/papi.md
# stock_judge TAG RESULTS TESTS_ASKED DOC MIN_LABEL SKIP_LABEL: RESULTS
# (known failures in RESULTS.known) against DOC's floor and ceiling, or
# against none when a list of tests was asked for.
stock_judge() {
	if [ -n "$3" ]; then
		log "$1: tests asked for by name: the documented counts are not compared"
		_min=0 _max=$(wc -l <"$2")
	else
		_min=$(doc_min "$4" "$5") _max=$(doc_min "$4" "$6")
		[ -n "$_min" ] && [ -n "$_max" ] || fail "$4 has no line '$5 N' or '$6 N'"
	fi
	judge_results "$1" "$2" "$2.known" "$_min" "$_max"
}
for g in pvh:PVH hvm:HVM; do
	k=${g#*:} g=${g%:*}
	# the guest's lines, printable text only
	tr -d '\r' <"$console" | sed -n "s/^stock-$g: //p" | tr -cd '\11\12\40-\176' >"$work/stock-$g.txt"
	grep "^PMUVIRT-STOCK-UPTIME" "$work/stock-$g.txt" | sed "s/^/vm-xen: $k domU: /" >&2
	if ! grep -q "^PMUVIRT-STOCK-DONE" "$work/stock-$g.txt"; then
		tail -n 40 "$work/stock-$g.txt" >&2
		log "FAIL: the $k domU did not finish"
		exit 1
	fi
	if grep "^PMUVIRT-STOCK-KERNEL: " "$work/stock-$g.txt" >&2; then
		log "$k domU: kernel warnings (above)"
		result=1
	fi
	r=$work/perf-test-$g.txt
	sed -n '/^PERF-TEST-BEGIN/,/^PERF-TEST-END/p' "$work/stock-$g.txt" |
		awk -f "$srcroot/test/vm-xen/perf-test.awk" >"$r"
	# the documented failures of the tests that ran
	sed 's/[. ].*//' "$r" | sort -u >"$r.ran"
	doc_list "$xdoc" perf-test-known | awk 'NR == FNR { ran[$1] = 1; next }
		{ t = $1; sub(/\..*/, "", t) } t in ran' "$r.ran" - | sort >"$r.known"
	stock_judge "perf test in the $k domU" "$r" "${PMUVIRT_XEN_PERF_TESTS:-}" "$xdoc" \
		"Passing perf tests in the $k domU: at least" "Skipped perf tests in the $k domU: at most"
done
# PAPI's suite on Debian's libpapi in the HVM domU.
r=$work/papi-stock.txt
sed -n '/^PAPI-OUTPUT-BEGIN: papi_command_line/,/^PAPI-OUTPUT-END/p' "$work/stock-hvm.txt" >&2
sed -n '/^PAPI-RUN-TESTS-BEGIN/,/^PAPI-RUN-TESTS-END/p' "$work/stock-hvm.txt" |
	awk -f "$srcroot/test/papi/results.awk" >"$r"
doc_list "$pdoc" papi-stock-known-failures >"$r.known"
[ -s "$sroot/stock/papi-tests.txt" ] && [ "$(wc -l <"$r")" != "$(wc -l <"$sroot/stock/papi-tests.txt")" ] &&
	{ log "not every listed PAPI test gave a result"; result=1; }
stock_judge "PAPI's tests on Debian's libpapi in the HVM domU" "$r" "${PMUVIRT_XEN_PAPI_TESTS:-}" "$pdoc" \
	"Passing tests of the stock PAPI in the HVM domU: at least" \
	"Skipped tests of the stock PAPI in the HVM domU: at most"
[ $result = 0 ] || fail "stock boot: see $work/stock-pvh.txt, $work/stock-hvm.txt and their results"
fi
# Stock guests' PMU off: for every domain with Xen's pmuvirt-vpmu=0 (dom0,
# a PV kernel, and a PVH domU find no PMU), then for one PVH domU by its
# policy (pmuvirt-xenpolicy --no-vpmu while it is paused), on the Xen and
# CPU that give the stock boot's guests their PMU.
if want vpmu-off; then
boot vpmu-off "dom0_max_vcpus=1 pmuvirt-emulate sched=credit pmuvirt-vpmu=0" \
	"pmuvirt_off_boot=all" "Nehalem,vendor=AuthenticAMD,+svm,+npt"
grep -a "dom0: .*\(VPMU\|Performance Events\)\|nopmu: .*\(Performance Events\|no-pmu\)" "$console" >&2 || true
require "pmuvirt: stock guests' PMU: off (pmuvirt-vpmu=0)" "dom0: PMUVIRT-STOCK-PERF guest_type PV" \
	"dom0: PMUVIRT-STOCK-PERF-NO-PMU-OK" "PMUVIRT-DOM0-NO-PMU-EXIT=0" \
	"PMUVIRT-DOM0-STOCK-CREATED nopmu" "nopmu: PMUVIRT-STOCK-PERF guest_type PVH" \
	"nopmu: PMUVIRT-STOCK-PERF-NO-PMU-OK" "nopmu: PMUVIRT-DOMU-NO-PMU-EXIT=0" \
	"PMUVIRT-DOM0-STOCK-ENDED nopmu"
fi
if want policy-off; then
boot policy-off "dom0_max_vcpus=1 pmuvirt-emulate sched=credit" \
	"pmuvirt_off_boot=policy" "Nehalem,vendor=AuthenticAMD,+svm,+npt"
grep -a "nopmu: .*\(Performance Events\|no-pmu\)" "$console" >&2 || true
require "pmuvirt: stock HVM and PVH guests' PMU: AMD version 1, 4 general counters" \
	"PMUVIRT-DOM0-STOCK-CREATED nopmu" "PMUVIRT-DOM0-NO-VPMU-POLICY-EXIT=0" \
	"pmuvirt: d1v0: emulated PMU off by the domain's policy" \
	"pmuvirt: d1v1: emulated PMU off by the domain's policy" \
	"nopmu: PMUVIRT-STOCK-PERF guest_type PVH" "nopmu: PMUVIRT-STOCK-PERF-NO-PMU-OK" \
	"nopmu: PMUVIRT-DOMU-NO-PMU-EXIT=0" "PMUVIRT-DOM0-STOCK-ENDED nopmu"
fi
log "boots passed: $boots"
for b in $all_boots; do
	want "$b" || { log "FAIL: boot $b not run (PMUVIRT_XEN_BOOTS=$boots)"; exit 1; }
done
log "PASS"
exit 0
