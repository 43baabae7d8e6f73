#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Boot Xen with pmuvirt under QEMU (TCG, -icount shift=0) with Debian's
# kernel as a PV dom0, seven times.  With two dom0 VCPUs,
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
# moves their VCPUs between them and takes PCPU 1 offline and back.  On
# the domu boot's Xen, xl creates an HVM domU with
# QEMU as its device model (hvm.cfg) that runs pmuvirt_xen_guest and
# vmtest imode; dom0 makes a save of it fail with Xen's test instrument
# pmuvirt-fail-save, then saves and restores it during xen_save_guest.
# Judged by console markers, not by QEMU's exit status.
#
# usage: test/vm-xen/run.sh [BUILD_DIR]     (default <source>/build-xen)
# Exit: 0 pass, 1 fail, 77 skipped (missing tools and not root).
# Environment: PMUVIRT_XEN_ITERATIONS (loop length per thread of the
#              hypercall test, default 5e7), PMUVIRT_XEN_GUEST_ITERATIONS
#              (the same for pmuvirt_xen_guest, default 5e7),
#              PMUVIRT_XEN_TIMEOUT (seconds, default 900),
#              PMUVIRT_XEN_BOOTS (the boots to run, default
#              "real emulated refused watchdog domu smp hvm"; the test passes
#              only with all), PMUVIRT_XEN_EMU_ARGS (more Xen options for the
#              emulated boot, e.g. timer_slop=0 for docs/sampling.md).
set -eu

vm_name=vm-xen
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$(dirname "$0")/../.." "${1:-$(dirname "$0")/../../build-xen}"
srcroot=$src build=$out
cache=$build/cache
work=$build/vm-xen
iterations=${PMUVIRT_XEN_ITERATIONS:-50000000}
guest_iterations=${PMUVIRT_XEN_GUEST_ITERATIONS:-50000000}
timeout_s=${PMUVIRT_XEN_TIMEOUT:-900}
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
boots=${PMUVIRT_XEN_BOOTS:-real emulated refused watchdog domu smp hvm}

log() { echo "vm-xen: $*" >&2; }

need="qemu-system-x86_64 busybox cpio gzip gcc make flex bison python3 dpkg-deb dpkg-source apt-get"
if [ "$(id -u)" = 0 ]; then
	"$srcroot/tools/install-deps.sh" vm-xen
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

xver=$(cat "$cache/xen-src.stamp")
tdir=$cache/toolstack-$xver
log "Xen's toolstack ($xver)"
fetch_debs "$tdir" "$xver" xen-utils-4.17 libxenmisc4.17 libxencall1 libxenevtchn1 \
	libxenforeignmemory1 libxengnttab1 libxenstore4 libxentoollog1 libxentoolcore1 \
	libxenhypfs1 libxendevicemodel1 libyajl2
# The hvm boot's device model: Debian's QEMU for Xen, the version of the
# host's QEMU (whose packages seabios and qemu-system-data give the firmware).
if want hvm; then
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
# System-wide profiling: the tool, its test, and the symbols it reads (a
# static program's own: non-PIE, its file names its functions' addresses).
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/xen" \
	-o "$work/root/xen_prof_test" "$srcroot/test/vm-xen/xen_prof_test.c"
xp=$srcroot/tools/pmuvirt-xenprof
gcc -O2 -Wall -Wextra -Werror -static -I"$srcroot/include" -I"$srcroot/lib/user" -I"$srcroot/lib/xen" \
	-o "$work/root/pmuvirt-xenprof" "$xp/pmuvirt-xenprof.c" "$xp/drain.c" "$xp/symtab.c" \
	"$srcroot/lib/user/libpmuvirt-user.c"
objcopy --strip-debug "$(dirname "$xen")/xen-syms" "$work/root/xen-syms"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/user" \
	-o "$work/root/pmuvirt_xen_guest" "$srcroot/test/vm-xen/pmuvirt_xen_guest.c" \
	"$srcroot/lib/user/libpmuvirt-user.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/lib/user" \
	-o "$work/root/vmtest" "$srcroot/test/vm-linux/vmtest.c" \
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
for a in sh mount insmod rmmod cat grep echo poweroff sleep dmesg sed; do
	ln -s busybox "$droot/bin/$a"
done
cp "$build/module/pmuvirt.ko" "$pdir/rdpmc_probe.ko" "$work/root/pmuvirt_xen_guest" "$work/root/vmtest" \
	"$work/root/xen_access_test" "$work/root/xen_save_guest" "$work/root/xs_rendezvous" \
	"$kmods/xen-privcmd.ko" "$droot/"
gcc -O2 -Wall -Wextra -Werror -static -o "$droot/stock_perf_test" "$srcroot/test/vm-xen/stock_perf_test.c"
cat >"$droot/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "PMUVIRT-DOMU-UP cpus=\$(grep -c ^processor /proc/cpuinfo)"
# Its own VCPUs only: dom0's and the other domU's are refused by Xen.
# (Linux's privcmd passes a domU's hypercalls on only when unrestricted.)
insmod /xen-privcmd.ko unrestricted=1
# domu: beside the other domU, saved, restored and migrated; hvm: alone,
# a save of it failed, then saved and restored; smp: on two
# PCPUs, where the TSC is no exact truth for a thread's work (shared).
run=domu shared=
grep -q pmuvirt_hvm /proc/cmdline && run=hvm
grep -q pmuvirt_smp /proc/cmdline && run=smp shared=shared
if [ \$run = domu ]; then
	/xen_access_test domu \$(sed -n 's/.*pmuvirt_peer=\([0-9]*\).*/\1/p' /proc/cmdline) profiled
	echo "PMUVIRT-DOMU-ACCESS-EXIT=\$?"
	# The loops of both domUs start together: dom0 writes the key once both wait.
	export PMUVIRT_XEN_GUEST_GO="/xs_rendezvous wait data/pmuvirt-go 300"
fi
# The guest kernel's own perf on the PMU Xen emulates, before pmuvirt.ko.
[ \$run = hvm ] && { /stock_perf_test emulated; echo "PMUVIRT-STOCK-PERF-EXIT=\$?"; }
insmod /pmuvirt.ko && echo "PMUVIRT-DOMU-LOADED"
dmesg | grep "pmuvirt:" | sed 's/^\\[[^]]*\\] //'
/pmuvirt_xen_guest $guest_iterations emulated \$shared
echo "PMUVIRT-DOMU-GUEST-EXIT=\$?"
# i-mode counters on Xen's emulated PMU: overflow -> PMI -> VIRQ -> signal.
/vmtest imode \${shared:-0.04}
echo "PMUVIRT-DOMU-IMODE-EXIT=\$?"
if [ \$run = hvm ]; then
	# dom0 makes a save of this domain fail (Xen's pmuvirt-fail-save): the
	# suspend is cancelled, the domain carries on and maps its records again.
	resumes=/sys/module/pmuvirt/parameters/xen_resumes
	r0=\$(cat \$resumes)
	echo "PMUVIRT-DOMU-FAIL-SAVE-WAITING"
	/xs_rendezvous wait data/pmuvirt-failed 300
	r1=\$(cat \$resumes)
	echo "PMUVIRT-DOMU-FAIL-SAVE-RESUMES \$r0 then \$r1"
	[ "\$r1" = "\$((r0 + 1))" ] && echo "PMUVIRT-DOMU-FAIL-SAVE-CANCELLED"
fi
if [ \$run != smp ]; then
	# In the middle of these loops dom0 saves and restores the domain, then
	# migrates a PV or PVH one to its own host: two comebacks, or one.
	mode=; dmesg | grep -q "backend: Xen PVH\|backend: Xen HVM" && mode=guest-only
	/xen_save_guest \$mode \$([ \$run = hvm ] && echo 1 || echo 2)
	echo "PMUVIRT-DOMU-SAVE-EXIT=\$?"
fi
/vmtest reap
echo "PMUVIRT-DOMU-REAP-EXIT=\$?"
echo "PMUVIRT-DOMU-HYPERCALLS \$(cat /sys/module/pmuvirt/parameters/xen_hypercalls)"
rmmod pmuvirt && echo "PMUVIRT-DOMU-UNLOADED"
if [ \$run = domu ]; then
	# dom0's profiling session still runs: this VCPU's rdpmc sees only its own counter
	insmod /rdpmc_probe.ko 2>/dev/null
	dmesg | grep PMUVIRT-RDPMC | sed 's/^\\[[^]]*\\] //'
fi
echo "PMUVIRT-DOMU-KERNEL-WARNINGS=\$(dmesg | grep -c 'pmuvirt: VCPU\|pmuvirt: cannot\|WARNING:\|BUG:')"
echo "PMUVIRT-DOMU-DONE"
poweroff -f
INIT
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
for m in xen-gntdev.ko xen-gntalloc.ko; do
	cp "$kmods/$m" "$work/root/lib/modules/" || { log "FAIL: $m not in $kver"; exit 1; }
done
# The hvm boot's additions, in a second archive (the other boots do without):
# the device model where Debian's libxl runs it, its libraries, hvmloader,
# SeaBIOS and QEMU's option ROMs at the paths QEMU and libxl look in.
if want hvm; then
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
# the dom0 command line says which.
cat >"$work/root/init" <<INIT
#!/bin/sh
# wait_for FILE MARKER SECONDS: MARKER is in FILE, or false after SECONDS.
wait_for() {
	_i=0
	until grep -q "\$2" "\$1" 2>/dev/null; do
		[ \$_i -lt \$3 ] || return 1
		sleep 1
		_i=\$((_i + 1))
	done
}
# Xen's toolstack in dom0: xenstored, dom0's entries, xenconsoled.
toolstack_up() {
	for m in xen-gntdev xen-gntalloc; do insmod /lib/modules/\$m.ko; done
	mkdir -p /run /var/lib /var/log/xen/console /var/lock
	mount -t tmpfs tmpfs /run
	mount -t tmpfs tmpfs /var/lib
	# xenconsoled gives each guest console a pty, even when it only logs.
	mkdir -p /dev/pts
	mount -t devpts devpts /dev/pts
	mkdir -p /run/xen /run/xenstored /var/lib/xen /var/lib/xenstored
	ln -s /run /var/run
	export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
	/usr/bin/xenstored --pid-file /run/xenstored.pid && echo "PMUVIRT-DOM0-XENSTORED"
	/usr/bin/xen-init-dom0 && echo "PMUVIRT-DOM0-INIT-DOM0"
	/usr/bin/xenconsoled --pid-file=/run/xenconsoled.pid --log=guest --log-dir=/var/log/xen/console &&
		echo "PMUVIRT-DOM0-XENCONSOLED"
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
insmod /lib/modules/xen-privcmd.ko
insmod /lib/modules/xen-evtchn.ko
insmod /lib/modules/xenfs.ko
mkdir -p /proc/xen
mount -t xenfs xenfs /proc/xen
echo "PMUVIRT-XEN-DOM0-UP cpus=\$(grep -c ^processor /proc/cpuinfo)"
# The kernel's symbols for profiles, in System.map's format (Debian's
# System.map is a placeholder); a PV kernel is not relocated, so dom0's
# addresses are the domUs' too, which run the same image (not their
# modules': those lines are left out).
echo 0 >/proc/sys/kernel/kptr_restrict
grep -v '\[' /proc/kallsyms >/tmp/kallsyms
if grep -q pmuvirt_domu_boot /proc/cmdline; then
	# A PV and a PVH domU through Xen's own toolstack, on the one PCPU
	# with dom0, which spins meanwhile: each domU's threads must count
	# their own work only.  Then dom0 saves and restores each domU in the
	# middle of its last loops.
	toolstack_up
	t0=\$(cut -d. -f1 /proc/uptime)
	# Xen numbers a fresh boot's domains from 1: each domU is told the
	# other's domid (and the boot script checks that they got 1 and 2).
	for d in a:2:pv b:1:pvh; do
		n=\${d%%:*} t=\${d##*:} p=\${d#*:}
		/usr/bin/xl create -p /etc/xen/domu.cfg "name=\"pmuvirt-\$n\"" "type=\"\$t\"" \
			"extra=\"console=hvc0 panic=-1 quiet nmi_watchdog=0 pmuvirt_peer=\${p%:*}\"" &&
			echo "PMUVIRT-DOM0-CREATED \$n \$t"
	done
	echo "PMUVIRT-DOM0-CREATE-SECONDS \$(( \$(cut -d. -f1 /proc/uptime) - t0 ))"
	/usr/bin/xl list
	echo "PMUVIRT-DOM0-DOMIDS \$(/usr/bin/xl domid pmuvirt-a) \$(/usr/bin/xl domid pmuvirt-b)"
	# dom0 manages the (still paused) domUs: it may read and set their VCPUs.
	/xen_access_test dom0 \$(/usr/bin/xl domid pmuvirt-a) \$(/usr/bin/xl domid pmuvirt-b)
	echo "PMUVIRT-XEN-ACCESS-DOM0-EXIT=\$?"
	# The domUs run under a system-wide profile that names them (passive:
	# they run no profiling code of their own); /domu-run.sh starts them,
	# saves and restores each, and returns when both are gone.
	a=\$(/usr/bin/xl domid pmuvirt-a)
	b=\$(/usr/bin/xl domid pmuvirt-b)
	log=/var/log/xen/console/guest-pmuvirt
	/pmuvirt-xenprof record -d 0 -d \$a -d \$b -c $domu_prof_period -o /tmp/domu.data -- sh /domu-run.sh
	echo "PMUVIRT-XEN-PROF-DOMU-RECORD-EXIT=\$?"
	echo "PMUVIRT-DOM0-DOMUS-SECONDS \$(( \$(cut -d. -f1 /proc/uptime) - t0 ))"
	/pmuvirt-xenprof report -i /tmp/domu.data --xen-syms /xen-syms --map 0=/tmp/kallsyms \
		--map \$a=/tmp/kallsyms --map \$b=/tmp/kallsyms --top 100000 >/tmp/domu.txt
	echo "PMUVIRT-XEN-PROF-DOMU-REPORT-EXIT=\$?"
	sed -n '1,40s/^/prof: /p' /tmp/domu.txt
	/xen_prof_test domus /tmp/domu.txt d\$a d\$b:hvm
	/usr/bin/xl list
	# a migrated domain logs to the name it had while it came in
	echo "PMUVIRT-DOM0-CONSOLE-LOGS" \$(ls /var/log/xen/console)
	for d in a b; do
		cat \$log-\$d.log \$log-\$d--incoming.log 2>/dev/null | sed "s/^/domu-\$d: /"
	done
elif grep -q pmuvirt_smp_boot /proc/cmdline; then
	# Two PCPUs for six VCPUs: dom0's two, and a PV and a PVH domU of two
	# each.  The domUs run the guest tests under a system-wide profile
	# while dom0 moves their VCPUs between the PCPUs (xl vcpu-pin) and
	# takes PCPU 1 offline and back (/smp-run.sh).
	toolstack_up
	for d in a:pv b:pvh; do
		n=\${d%%:*} t=\${d##*:}
		/usr/bin/xl create -p /etc/xen/domu.cfg "name=\"pmuvirt-\$n\"" "type=\"\$t\"" \
			"extra=\"console=hvc0 panic=-1 quiet nmi_watchdog=0 pmuvirt_smp\"" &&
			echo "PMUVIRT-DOM0-CREATED \$n \$t"
	done
	a=\$(/usr/bin/xl domid pmuvirt-a)
	b=\$(/usr/bin/xl domid pmuvirt-b)
	log=/var/log/xen/console/guest-pmuvirt
	/pmuvirt-xenprof record -d 0 -d \$a -d \$b -c $domu_prof_period -o /tmp/smp.data -- sh /smp-run.sh
	echo "PMUVIRT-XEN-PROF-SMP-RECORD-EXIT=\$?"
	/pmuvirt-xenprof report -i /tmp/smp.data --xen-syms /xen-syms --map 0=/tmp/kallsyms \
		--map \$a=/tmp/kallsyms --map \$b=/tmp/kallsyms --top 100000 >/tmp/smp.txt
	echo "PMUVIRT-XEN-PROF-SMP-REPORT-EXIT=\$?"
	sed -n '1,30s/^/prof: /p' /tmp/smp.txt
	for d in a b; do
		sed "s/^/domu-\$d: /" \$log-\$d.log
	done
	# A PCPU goes down while a session runs (its idle context on it), the
	# session stops and is freed while it is down, the PCPU comes back and
	# a session counts on it again: nothing of the freed session is read.
	/pmuvirt-xenprof record -c $prof_period -o /tmp/hp.data -- /usr/bin/xen-hptool cpu-offline 1
	echo "PMUVIRT-XEN-HP-OFFLINE-RECORD-EXIT=\$?"
	/usr/bin/xen-hptool cpu-online 1
	echo "PMUVIRT-XEN-HP-ONLINE-EXIT=\$?"
	/pmuvirt-xenprof record -c $prof_period --cpu 0 -o /tmp/hp2.data -- /xen_prof_test hot $lossy_rounds
	echo "PMUVIRT-XEN-HP-AGAIN-RECORD-EXIT=\$?"
	/pmuvirt-xenprof report -i /tmp/hp2.data --exe 0=/xen_prof_test --top 100000 >/tmp/hp2.txt
	echo "PMUVIRT-XEN-HP-AGAIN-REPORT-EXIT=\$?"
	sed -n '1,12s/^/prof-hp: /p' /tmp/hp2.txt
elif grep -q pmuvirt_hvm_boot /proc/cmdline; then
	# An HVM domU with QEMU as its device model in dom0 (hvm.cfg), its
	# serial port in a file: the guest tests on Xen's emulated PMU, a save
	# that Xen's test instrument makes fail, then a save and a restore.
	toolstack_up
	t0=\$(cut -d. -f1 /proc/uptime)
	/usr/bin/xl create /etc/xen/hvm.cfg
	echo "PMUVIRT-DOM0-HVM-CREATE-EXIT=\$? seconds=\$(( \$(cut -d. -f1 /proc/uptime) - t0 ))"
	serial=/var/log/xen/hvm-serial.log
	h=\$(/usr/bin/xl domid pmuvirt-hvm)
	if wait_for \$serial PMUVIRT-DOMU-FAIL-SAVE-WAITING 300; then
		/usr/bin/xl set-parameters pmuvirt-fail-save=\$h && echo "PMUVIRT-DOM0-FAIL-SAVE-SET \$h"
		s0=\$(cut -d. -f1 /proc/uptime)
		/usr/bin/xl save pmuvirt-hvm /var/lib/xen/hvm.save || echo "PMUVIRT-DOM0-SAVE-FAILED hvm"
		echo "PMUVIRT-DOM0-FAIL-SAVE-SECONDS \$(( \$(cut -d. -f1 /proc/uptime) - s0 ))"
		rm -f /var/lib/xen/hvm.save
		/usr/bin/xl dmesg | grep -q "pmuvirt: d\${h}v0: counters cannot be saved (-5): the save fails" &&
			echo "PMUVIRT-DOM0-FAIL-SAVE-LOGGED d\${h}v0"
		# the suspend was cancelled: the domain runs (r), blocks (b) or waits
		# for the PCPU (no flag), neither paused nor shut down
		st=\$(/usr/bin/xl list pmuvirt-hvm | sed -n 's/^pmuvirt-hvm  *'\$h'  *[0-9]*  *[0-9]*  *\([-rbpscd]*\) .*/\1/p')
		case "\$st" in
		*[pscd]* | "") echo "PMUVIRT-DOM0-FAIL-SAVE-STATE '\$st'" ;;
		*) echo "PMUVIRT-DOM0-FAIL-SAVE-RUNNING \$st" ;;
		esac
		/usr/bin/xl set-parameters pmuvirt-fail-save=0 && echo "PMUVIRT-DOM0-FAIL-SAVE-RESET"
		/xs_rendezvous write /local/domain/\$h/data/pmuvirt-failed 0
	fi
	# In the middle of xen_save_guest's loops: saved and restored.  The
	# restored device model starts the serial file afresh: the first
	# life's output is kept aside.
	first=
	if wait_for \$serial PMUVIRT-SAVE-READY 300; then
		s0=\$(cut -d. -f1 /proc/uptime)
		if /usr/bin/xl save pmuvirt-hvm /var/lib/xen/hvm.save; then
			echo "PMUVIRT-DOM0-SAVED hvm"
			first=/var/log/xen/hvm-serial-first.log
			cp \$serial \$first
		fi
		s1=\$(cut -d. -f1 /proc/uptime)
		[ -n "\$first" ] && /usr/bin/xl restore /var/lib/xen/hvm.save &&
			echo "PMUVIRT-DOM0-RESTORED hvm"
		echo "PMUVIRT-DOM0-SAVE-SECONDS hvm save \$((s1 - s0)) restore \$(( \$(cut -d. -f1 /proc/uptime) - s1 )) image \$(du -m /var/lib/xen/hvm.save | cut -f1) MiB"
		rm -f /var/lib/xen/hvm.save
	fi
	i=0
	while [ \$i -lt 300 ] && /usr/bin/xl list | grep -q pmuvirt-hvm; do
		sleep 1
		i=\$((i + 1))
	done
	/usr/bin/xl list | grep -q pmuvirt-hvm || echo "PMUVIRT-DOM0-HVM-ENDED"
	echo "PMUVIRT-DOM0-HVM-SECONDS \$(( \$(cut -d. -f1 /proc/uptime) - t0 ))"
	cat \$first \$serial | sed 's/^/hvm: /'
elif grep -q pmuvirt_refused_boot /proc/cmdline; then
	# Xen's vPMU or the NMI watchdog was asked for: pmuvirt refused to start.
	/xen_policy_test refused
	echo "PMUVIRT-XEN-REFUSED-EXIT=\$?"
elif grep -q pmuvirt_emulated_boot /proc/cmdline; then
	/xen_emu_test
	echo "PMUVIRT-XEN-EMU-EXIT=\$?"
	# System-wide profiling: the session's rules and arbitration, then a
	# profile of a program with a known hot function.
	/xen_prof_test rules
	echo "PMUVIRT-XEN-PROF-RULES-EXIT=\$?"
	# The loop below runs alone on VCPU 0 for seconds: no real-time throttling.
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	# Its VCPU's time without a session, for the session's cost.
	/xen_prof_test hot $prof_rounds
	# The drainer on VCPU 1: the loop owns VCPU 0.
	/pmuvirt-xenprof record -c $prof_period --cpu 1 -o /tmp/hot.data -- /xen_prof_test hot $prof_rounds
	echo "PMUVIRT-XEN-PROF-RECORD-EXIT=\$?"
	/pmuvirt-xenprof report -i /tmp/hot.data --xen-syms /xen-syms --map 0=/tmp/kallsyms \
		--exe 0=/xen_prof_test --top 100000 >/tmp/hot.txt
	echo "PMUVIRT-XEN-PROF-REPORT-EXIT=\$?"
	sed -n '1,30s/^/prof: /p' /tmp/hot.txt
	/xen_prof_test check /tmp/hot.txt $prof_period $prof_work_a $prof_work_b
	# Rings of 32 records drained only at the end: the loss is counted.
	/pmuvirt-xenprof record -c $prof_period --pages 2 --no-virq --drain-ms 1000000 \
		-o /tmp/lossy.data -- /xen_prof_test hot $lossy_rounds
	echo "PMUVIRT-XEN-PROF-LOSSY-RECORD-EXIT=\$?"
	/pmuvirt-xenprof report -i /tmp/lossy.data --exe 0=/xen_prof_test --top 100000 >/tmp/lossy.txt
	sed -n 's/^\(# .*\)/prof-lossy: \1/p' /tmp/lossy.txt
	/xen_prof_test check /tmp/lossy.txt $prof_period $lossy_work_a $lossy_work_b lossy
	# The same rings drained by the VIRQ alone (its timer drain would come
	# after 1000 s): a ring at its mark of 16 records calls the drain, on
	# VCPU 1, before it fills; none is lost.
	/pmuvirt-xenprof record -c $prof_period --pages 2 --high-water 50 --drain-ms 1000000 \
		--cpu 1 -o /tmp/virq.data -- /xen_prof_test hot $lossy_rounds 2>/tmp/virq.log
	echo "PMUVIRT-XEN-PROF-VIRQ-RECORD-EXIT=\$?"
	sed 's/^/prof-virq: /' /tmp/virq.log
	/pmuvirt-xenprof report -i /tmp/virq.data --exe 0=/xen_prof_test --top 100000 >/tmp/virq.txt
	sed -n 's/^\(# .*\)/prof-virq: \1/p' /tmp/virq.txt
	/xen_prof_test check /tmp/virq.txt $prof_period $lossy_work_a $lossy_work_b virq /tmp/virq.log
	# Both levels on the emulated PMU: guest threads' i-mode counters
	# overflow through Xen's PMI, the VIRQ and the module's signal.
	insmod /lib/modules/pmuvirt.ko && echo "PMUVIRT-XEN-EMU-GUEST-LOADED"
	dmesg | grep "pmuvirt:" | sed 's/^/dom0: /'
	# The emulated counters live in Xen: every guest PMC read is a READ
	# hypercall, part of whose cost lands in the thread (about 1.5%).
	/vmtest imode 0.04
	echo "PMUVIRT-XEN-EMU-GUEST-EXIT=\$?"
	# IP sampling through Xen's PMI and the VIRQ: two threads on VCPU 0,
	# each a 3:1 split of its work between two loops (docs/sampling.md).
	/vmtest sample
	echo "PMUVIRT-XEN-EMU-SAMPLE-EXIT=\$?"
	echo "PMUVIRT-XEN-EMU-GUEST-HYPERCALLS \$(cat /sys/module/pmuvirt/parameters/xen_hypercalls)"
	grep pmuvirt /proc/interrupts
	rmmod pmuvirt && echo "PMUVIRT-XEN-EMU-GUEST-UNLOADED"
	echo "PMUVIRT-XEN-EMU-GUEST-KERNEL-WARNINGS=\$(dmesg | grep -c 'pmuvirt: VCPU\|pmuvirt: cannot\|WARNING:\|BUG:')"
else
	/pmuvirt_xen_test $iterations
	echo "PMUVIRT-XEN-TEST-EXIT=\$?"
	/xen_domains_test
	echo "PMUVIRT-XEN-DOMAINS-EXIT=\$?"
	/xen_policy_test
	echo "PMUVIRT-XEN-POLICY-EXIT=\$?"
	# No profiling session on a PMU that is the TSC alone.
	/xen_prof_test nopmu
	# The guest level.  After the direct hypercall test: the module owns the
	# VCPUs' counters from here on.
	insmod /lib/modules/pmuvirt.ko && echo "PMUVIRT-XEN-GUEST-LOADED"
	dmesg | grep "pmuvirt:" | sed 's/^/dom0: /'
	/pmuvirt_xen_guest $guest_iterations
	echo "PMUVIRT-XEN-GUEST-EXIT=\$?"
	# processes that exit attached leave no module reference once reaped
	/vmtest reap
	echo "PMUVIRT-XEN-GUEST-REAP-EXIT=\$?"
	echo "PMUVIRT-XEN-GUEST-HYPERCALLS-TOTAL \$(cat /sys/module/pmuvirt/parameters/xen_hypercalls)"
	grep pmuvirt /proc/interrupts
	rmmod pmuvirt && echo "PMUVIRT-XEN-GUEST-UNLOADED"
	/pmuvirt_xen_test empty
	dmesg | grep "pmuvirt:" | tail -n 3 | sed 's/^/dom0: /'
	# Xen refusing a control (at a switch or when unload empties the VCPUs)
	# or a kernel warning would show here.
	echo "PMUVIRT-XEN-GUEST-KERNEL-WARNINGS=\$(dmesg | grep -c 'pmuvirt: VCPU\|pmuvirt: cannot\|WARNING:\|BUG:')"
fi
cat /proc/interrupts
reboot -f
INIT
chmod +x "$work/root/init"
# The domu boot's profiled command: run both domUs, dom0 spinning meanwhile.
cat >"$work/root/domu-run.sh" <<'RUN'
log=/var/log/xen/console/guest-pmuvirt
/usr/bin/xl unpause pmuvirt-a
/usr/bin/xl unpause pmuvirt-b
sh -c 'while :; do :; done' &
spin=$!
# The PVH domU boots in a fraction of the PV one's time: both wait before
# their loops until dom0 writes their go key, so the loops run at once.
i=0
while [ $i -lt 300 ] && ! { grep -q PMUVIRT-XEN-GUEST-WAITING $log-a.log &&
	grep -q PMUVIRT-XEN-GUEST-WAITING $log-b.log; } 2>/dev/null; do
	sleep 1
	i=$((i + 1))
done
# a start time on Xen's wall clock: each domU reads its key when it can
go=$(( $(date +%s) + 3 ))
for d in a b; do
	/xs_rendezvous write /local/domain/$(/usr/bin/xl domid pmuvirt-$d)/data/pmuvirt-go $go &&
		echo "PMUVIRT-DOM0-GO $d $go"
done
# In the middle of its last loops each domU is saved and restored, then,
# once it says it is back, migrated live to this same host (the receiver
# is "xl migrate-receive" run here, not over ssh): one xl at a time.
step_a=save step_b=save
i=0
while [ $i -lt 600 ] && /usr/bin/xl list | grep -q pmuvirt-; do
	for d in a b; do
		eval step=\$step_$d
		case $step in
		save)
			grep -q PMUVIRT-SAVE-READY $log-$d.log 2>/dev/null || continue
			# xl is slow enough without the spinner
			[ -n "$spin" ] && kill $spin && spin=
			s0=$(cut -d. -f1 /proc/uptime)
			/usr/bin/xl save pmuvirt-$d /var/lib/xen/$d.save && echo "PMUVIRT-DOM0-SAVED $d"
			s1=$(cut -d. -f1 /proc/uptime)
			/usr/bin/xl restore /var/lib/xen/$d.save && echo "PMUVIRT-DOM0-RESTORED $d"
			echo "PMUVIRT-DOM0-SAVE-SECONDS $d save $((s1 - s0)) restore $(( $(cut -d. -f1 /proc/uptime) - s1 )) image $(du -m /var/lib/xen/$d.save | cut -f1) MiB"
			rm -f /var/lib/xen/$d.save
			step=migrate
			;;
		migrate)
			grep -q "PMUVIRT-SAVE-BACK 1" $log-$d.log 2>/dev/null || continue
			/usr/bin/xl info | sed -n "s/^free_memory *: */PMUVIRT-DOM0-FREE-MIB $d /p"
			s0=$(cut -d. -f1 /proc/uptime)
			/usr/bin/xl migrate -s "" pmuvirt-$d "/usr/bin/xl migrate-receive" &&
				echo "PMUVIRT-DOM0-MIGRATED $d"
			echo "PMUVIRT-DOM0-MIGRATE-SECONDS $d $(( $(cut -d. -f1 /proc/uptime) - s0 ))"
			step=done
			;;
		esac
		eval step_$d=\$step
	done
	sleep 1
	i=$((i + 1))
done
# the recorder returns this script's status
if [ -n "$spin" ]; then kill $spin; fi
RUN
# The smp boot's run: both domUs, all their VCPUs moved to the other PCPU
# (hard affinity, one xl call a domain) as fast as xl can while they run,
# and PCPU 1 offline for a moment in the middle.
cat >"$work/root/smp-run.sh" <<'RUN'
/usr/bin/xl unpause pmuvirt-a
/usr/bin/xl unpause pmuvirt-b
i=0 pins=0
while [ $i -lt 10000 ] && /usr/bin/xl list | grep -q pmuvirt-; do
	for d in a b; do
		/usr/bin/xl vcpu-pin pmuvirt-$d all $((i % 2)) 2>/dev/null && pins=$((pins + 1))
	done
	if [ $i = 20 ]; then
		/usr/bin/xen-hptool cpu-offline 1 && echo "PMUVIRT-DOM0-SMP-OFFLINE"
		usleep 300000
		/usr/bin/xen-hptool cpu-online 1 && echo "PMUVIRT-DOM0-SMP-ONLINE"
	fi
	i=$((i + 1))
done
echo "PMUVIRT-DOM0-SMP-PINS $pins in $i rounds"
RUN
pack "$work/root" "$work/initrd.cpio.gz"
# The hvm boot's: the kernel unpacks the archives one after the other.
if want hvm; then
	pack "$hroot" "$work/hvm-extra.cpio.gz"
	cat "$work/initrd.cpio.gz" "$work/hvm-extra.cpio.gz" >"$work/initrd-hvm.cpio.gz"
fi

# 4. Boot: one physical CPU, TSC = executed instructions.
# boot NAME XEN_OPTIONS DOM0_OPTIONS [CPU [INITRD]]: one run, console in
# $work/console-NAME.log
boot() {
	console=$work/console-$1.log
	log "booting Xen ($1, ${6:-1} PCPUs; log: $console)"
	vm_qemu_xen "$console" "$timeout_s" "$2" "$3" "${5:-$work/initrd.cpio.gz}" "${4:-}" "${6:-1}" >&2
	grep -a "pmuvirt\|PMUVIRT-XEN\|PMUVIRT-DOM\|^vm: \|: vm: \|^prof" "$console" | sed 's/^(XEN) //' >&2 || true
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
	"PMUVIRT-XEN-PROF-DOMUS-PASSED"
for d in a:PV b:PVH; do
	k=${d#*:} d=${d%:*}
	require_domu "domu-$d: " "$k" "domu-$d: PMUVIRT-XEN-ACCESS-DOMU-PASSED" \
		"domu-$d: PMUVIRT-DOMU-ACCESS-EXIT=0" \
		"domu-$d: PMUVIRT-SAVE-BACK 2" "domu-$d: PMUVIRT-SAVE-PASSED" \
		"domu-$d: PMUVIRT-DOMU-SAVE-EXIT=0" \
		"domu-$d: PMUVIRT-RDPMC-PASSED"
done
# The two domains' loops ran at once (Xen's wall clock, which both read).
set -- $(sed -n 's/.*domu-[ab]: PMUVIRT-XEN-GUEST-WINDOW \([0-9]*\) \([0-9]*\).*/\1 \2/p' "$console" | tr -d '\r')
if [ $# -ne 4 ] || ! awk -v a0="$1" -v a1="$2" -v b0="$3" -v b1="$4" \
	'BEGIN { lo = a0 > b0 ? a0 : b0; hi = a1 < b1 ? a1 : b1; exit !(lo < hi) }'; then
	log "FAIL: the two domUs' loops did not run at once (wall clock windows: $*)"
	exit 1
fi
log "domU loop windows (wall clock, ns): $1-$2 and $3-$4"
fi
# Two PCPUs (-smp 2; dom0 2 VCPUs, two domUs of 2): VCPUs move between
# PCPUs mid-loop, the session's interrupts cross PCPUs, PCPU 1 goes offline
# and back, with and without a session on it.
if want smp; then
boot smp "dom0_max_vcpus=2 pmuvirt-emulate sched=credit" "pmuvirt_smp_boot" \
	"Nehalem,vendor=AuthenticAMD,+svm,+npt" "" 2
require "(XEN) Brought up 2 CPUs" "PMUVIRT-DOM0-CREATED a pv" "PMUVIRT-DOM0-CREATED b pvh" \
	"PMUVIRT-DOM0-SMP-OFFLINE" "PMUVIRT-DOM0-SMP-ONLINE" \
	"PMUVIRT-XEN-PROF-SMP-RECORD-EXIT=0" "PMUVIRT-XEN-PROF-SMP-REPORT-EXIT=0" \
	"PMUVIRT-XEN-HP-OFFLINE-RECORD-EXIT=0" "PMUVIRT-XEN-HP-ONLINE-EXIT=0" \
	"PMUVIRT-XEN-HP-AGAIN-RECORD-EXIT=0" "PMUVIRT-XEN-HP-AGAIN-REPORT-EXIT=0"
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
	"PMUVIRT-DOM0-SAVED hvm" "PMUVIRT-DOM0-RESTORED hvm" "PMUVIRT-DOM0-HVM-ENDED"
require_domu "hvm: " HVM "hvm: PMUVIRT-DOMU-FAIL-SAVE-CANCELLED" \
	"hvm: PMUVIRT-SAVE-BACK 1" "hvm: PMUVIRT-SAVE-PASSED" "hvm: PMUVIRT-DOMU-SAVE-EXIT=0" \
	"pmuvirt: stock HVM and PVH guests' PMU: AMD version 1, 4 general counters" \
	"hvm: PMUVIRT-STOCK-PERF-COUNT-OK" "hvm: PMUVIRT-STOCK-PERF-SAMPLE-OK" \
	"hvm: PMUVIRT-STOCK-PERF-PASSED" "hvm: PMUVIRT-STOCK-PERF-EXIT=0"
fi
log "boots passed: $boots"
for b in real emulated refused watchdog domu smp hvm; do
	want "$b" || { log "FAIL: boot $b not run (PMUVIRT_XEN_BOOTS=$boots)"; exit 1; }
done
log "PASS"
exit 0
