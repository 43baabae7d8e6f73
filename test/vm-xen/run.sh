#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Boot Xen with pmuvirt under QEMU (TCG, -icount shift=0) with Debian's
# kernel as a PV dom0 of two VCPUs on one physical CPU, three times.  As the
# hardware is (the TSC alone): pmuvirt_xen_test drives the hypercall, then
# pmuvirt.ko is loaded and pmuvirt_xen_guest checks per-thread counts on
# top of the VCPUs'.  With Xen's emulated PMU (pmuvirt-emulate):
# xen_emu_test checks PMC counting per VCPU and the PMI -> VIRQ path.  With
# vpmu=1: pmuvirt refuses to start, and its hypercall answers -EBUSY.
# Judged by console markers, not by QEMU's exit status.
#
# usage: test/vm-xen/run.sh [BUILD_DIR]     (default <source>/build-xen)
# Exit: 0 pass, 1 fail, 77 skipped (missing tools and not root).
# Environment: PMUVIRT_XEN_ITERATIONS (loop length per thread of the
#              hypercall test, default 5e7), PMUVIRT_XEN_GUEST_ITERATIONS
#              (the same for pmuvirt_xen_guest, default 5e7),
#              PMUVIRT_XEN_TIMEOUT (seconds, default 900),
#              PMUVIRT_XEN_BOOTS (the boots to run, default
#              "real emulated refused"; the test passes only with all).
set -eu

srcroot=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$srcroot/build-xen}
mkdir -p "$build"
build=$(cd "$build" && pwd)
cache=$build/cache
work=$build/vm-xen
iterations=${PMUVIRT_XEN_ITERATIONS:-50000000}
guest_iterations=${PMUVIRT_XEN_GUEST_ITERATIONS:-50000000}
timeout_s=${PMUVIRT_XEN_TIMEOUT:-900}
boots=${PMUVIRT_XEN_BOOTS:-real emulated refused}

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
xen=$("$srcroot/tools/xen/fetch-build.sh" "$build" | tail -n 1)
[ -f "$xen" ] || { log "FAIL: no hypervisor"; exit 1; }

# 2. Debian's kernel, the version of the installed linux-headers-amd64 (the
# module is built against those headers), unpacked without install scripts.
kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null || true)
[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] || { log "FAIL: no linux-headers-amd64 build tree"; exit 1; }
kdir=$cache/kernel-$kver-$hver
if [ ! -e "$kdir/stamp" ]; then
	rm -rf "$kdir"
	mkdir -p "$kdir"
	log "fetching linux-image-$kver $hver"
	(cd "$kdir" && { apt-get download -q "linux-image-$kver=$hver" >/dev/null 2>&1 ||
		apt-get download -q "linux-image-$kver" >/dev/null 2>&1; }) ||
		{ log "FAIL: apt-get download linux-image-$kver"; exit 1; }
	dpkg-deb -x "$kdir"/linux-image-*.deb "$kdir/root"
	touch "$kdir/stamp"
fi
vmlinuz=$kdir/root/boot/vmlinuz-$kver
kmods=$kdir/root/lib/modules/$kver/kernel/drivers/xen

# pmuvirt.ko, built as test/vm-linux builds it.
log "building pmuvirt.ko for $kver"
make -s -C "$srcroot/src/glue/linux" BUILD="$build/module" KVER="$kver" >"$build/module.log" 2>&1 ||
	{ cat "$build/module.log" >&2; log "FAIL: module build"; exit 1; }
if grep -E "warning|error" "$build/module.log" >&2; then
	log "FAIL: the module build has warnings (above)"
	exit 1
fi

# 3. The initramfs: busybox, the xen-privcmd and xenfs modules, the test.
rm -rf "$work"
mkdir -p "$work/root/bin" "$work/root/lib/modules" "$work/root/proc" "$work/root/sys" \
	"$work/root/dev" "$work/root/tmp"
cp "$busybox" "$work/root/bin/busybox"
for a in sh mount mkdir insmod rmmod cat grep echo reboot sleep dmesg tail; do
	ln -s busybox "$work/root/bin/$a"
done
for m in xen-privcmd.ko xen-evtchn.ko xenfs/xenfs.ko; do
	cp "$kmods/$m" "$work/root/lib/modules/" || { log "FAIL: $m not in $kver"; exit 1; }
done
gcc -O2 -Wall -Wextra -static -pthread -I"$srcroot/include" \
	-o "$work/root/pmuvirt_xen_test" "$srcroot/test/vm-xen/pmuvirt_xen_test.c"
gcc -O2 -Wall -Wextra -static -pthread -I"$srcroot/include" \
	-o "$work/root/xen_emu_test" "$srcroot/test/vm-xen/xen_emu_test.c"
gcc -O2 -Wall -Wextra -Werror -static -I"$srcroot/include" -o "$work/root/xen_domains_test" \
	"$srcroot/test/vm-xen/xen_domains_test.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" \
	-o "$work/root/xen_policy_test" "$srcroot/test/vm-xen/xen_policy_test.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/tools/pmuvirt-stat" \
	-o "$work/root/pmuvirt_xen_guest" "$srcroot/test/vm-xen/pmuvirt_xen_guest.c" \
	"$srcroot/tools/pmuvirt-stat/libpmuvirt-user.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -I"$srcroot/include" -I"$srcroot/tools/pmuvirt-stat" \
	-o "$work/root/vmtest" "$srcroot/test/vm-linux/vmtest.c" \
	"$srcroot/tools/pmuvirt-stat/libpmuvirt-user.c"
cp "$build/module/pmuvirt.ko" "$work/root/lib/modules/"
# The same initramfs serves both boots: the dom0 command line says which.
cat >"$work/root/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
insmod /lib/modules/xen-privcmd.ko
insmod /lib/modules/xen-evtchn.ko
insmod /lib/modules/xenfs.ko
mkdir -p /proc/xen
mount -t xenfs xenfs /proc/xen
echo "PMUVIRT-XEN-DOM0-UP cpus=\$(grep -c ^processor /proc/cpuinfo)"
if grep -q pmuvirt_refused_boot /proc/cmdline; then
	# Xen's vPMU was asked for: pmuvirt refused to start.
	/xen_policy_test refused
	echo "PMUVIRT-XEN-REFUSED-EXIT=\$?"
elif grep -q pmuvirt_emulated_boot /proc/cmdline; then
	/xen_emu_test
	echo "PMUVIRT-XEN-EMU-EXIT=\$?"
	# Both levels on the emulated PMU: guest threads' i-mode counters
	# overflow through Xen's PMI, the VIRQ and the module's signal.
	insmod /lib/modules/pmuvirt.ko && echo "PMUVIRT-XEN-EMU-GUEST-LOADED"
	dmesg | grep "pmuvirt:" | sed 's/^/dom0: /'
	# The emulated counters live in Xen: every guest PMC read is a READ
	# hypercall, part of whose cost lands in the thread (about 1.5%).
	/vmtest imode 0.04
	echo "PMUVIRT-XEN-EMU-GUEST-EXIT=\$?"
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
	# The guest level.  After the direct hypercall test: the module owns the
	# VCPUs' counters from here on.
	insmod /lib/modules/pmuvirt.ko && echo "PMUVIRT-XEN-GUEST-LOADED"
	dmesg | grep "pmuvirt:" | sed 's/^/dom0: /'
	/pmuvirt_xen_guest $guest_iterations
	echo "PMUVIRT-XEN-GUEST-EXIT=\$?"
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
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.cpio.gz"

# 4. Boot: one physical CPU, dom0 with two VCPUs, TSC = executed instructions.
# boot NAME XEN_OPTIONS DOM0_OPTIONS: one run, console in $work/console-NAME.log
boot() {
	console=$work/console-$1.log
	log "booting Xen ($1; log: $console)"
	start=$(date +%s)
	timeout "$timeout_s" qemu-system-x86_64 -M pc -cpu Nehalem -m 1024 -smp 1 \
		-icount shift=0,sleep=off -rtc clock=vm -display none -monitor none \
		-serial "file:$console" -no-reboot -kernel "$xen" \
		-append "console=com1 com1=115200,8n1 dom0_mem=512M,max:512M dom0_max_vcpus=2 loglvl=all guest_loglvl=all $2" \
		-initrd "$vmlinuz console=hvc0 panic=-1 quiet $3,$work/initrd.cpio.gz" </dev/null || true
	log "QEMU ran $(( $(date +%s) - start )) s"
	grep -a "pmuvirt\|PMUVIRT-XEN\|^vm: " "$console" | sed 's/^(XEN) //' >&2 || true
}

# require MARKER...: every marker is on the console of the last boot, or FAIL.
require() {
	for m in "$@"; do
		grep -qa "$m" "$console" && continue
		log "missing on the console: $m"
		tail -n 30 "$console" >&2
		log "FAIL"
		exit 1
	done
}

want() { case " $boots " in *" $1 "*) return 0 ;; esac; return 1; }

# The hardware as it is: the TSC alone; the VCPU level, then pmuvirt.ko on it.
if want real; then
boot real "" ""
require "PMUVIRT-XEN-PASSED" "PMUVIRT-XEN-TEST-EXIT=0" \
	"PMUVIRT-XEN-GUEST-PASSED" "PMUVIRT-XEN-GUEST-EXIT=0" \
	"pmuvirt: backend: Xen PV" "PMUVIRT-XEN-GUEST-UNLOADED" \
	"PMUVIRT-XEN-GUEST-KERNEL-WARNINGS=0" "PMUVIRT-XEN-EMPTY-OK" \
	"PMUVIRT-XEN-DOMAINS-PASSED" "PMUVIRT-XEN-DOMAINS-EXIT=0" \
	"PMUVIRT-XEN-POLICY-PASSED" "PMUVIRT-XEN-POLICY-EXIT=0"
fi
# Xen's emulated PMU (a test instrument): PMC counting and the PMI -> VIRQ path.
if want emulated; then
boot emulated "pmuvirt-emulate" "pmuvirt_emulated_boot"
require "PMUVIRT-XEN-EMU-PASSED" "PMUVIRT-XEN-EMU-EXIT=0" \
	"PMUVIRT-XEN-EMU-GUEST-EXIT=0" "PMUVIRT-XEN-EMU-GUEST-UNLOADED" \
	"PMUVIRT-XEN-EMU-GUEST-KERNEL-WARNINGS=0"
fi
# Xen's vPMU asked for: pmuvirt refuses to start and says so; dom0 checks
# the hypercall's answer and the boot ends there.
if want refused; then
boot refused "vpmu=1" "pmuvirt_refused_boot"
require "pmuvirt: disabled: Xen's vPMU was asked for (vpmu=1)" \
	"PMUVIRT-XEN-REFUSED-OK" "PMUVIRT-XEN-REFUSED-EXIT=0"
fi
for b in real emulated refused; do
	want "$b" || { log "FAIL: boot $b not run (PMUVIRT_XEN_BOOTS=$boots)"; exit 1; }
done
log "PASS"
exit 0
