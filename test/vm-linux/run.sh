#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Build pmuvirt.ko against Debian's linux-headers-amd64, boot the matching
# Debian kernel under qemu-system-x86_64 (TCG, -icount shift=0) with a
# busybox initramfs, and run vmtest (test/vm-linux/vmtest*.c) inside.
# usage: run.sh SOURCE_DIR BUILD_DIR       exit 0 pass, 1 fail, 77 skipped
set -eu
vm_name=vm-linux
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$1" "$2"

vm_deps vm-linux
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"

. "$src/test/vm-linux/kernel-image.sh"
vm_kernel_image "$out" skip
echo "vm-linux: kernel $kver ($hver)"

echo "vm-linux: building pmuvirt.ko"
vm_module
grep -E "warning|error" "$out/module.log" && echo "vm-linux: the module build has warnings (above)"

echo "vm-linux: building the guest programs"
vm_root "$src/test/vm-linux/init.sh" /bin/busybox
vm_programs gcc
# pmuvirt-record (static), pmuvirt-report (elfutils' libdw) and a PIE of
# vmtest for them to profile, with the shared libraries these two link
rec=$src/tools/pmuvirt-record
gcc $cflags -I"$rec" -o "$root/pmuvirt-record" "$rec/pmuvirt-record.c" "$rec/profile-file.c" \
	"$src/lib/user/libpmuvirt-user.c" || die "pmuvirt-record build"
dflags="-O2 -Wall -Wextra -Werror -I$src/include -I$src/lib/user -I$rec"
gcc $dflags -o "$root/pmuvirt-report" "$rec/pmuvirt-report.c" "$rec/report.c" "$rec/symbols.c" \
	"$rec/session.c" "$rec/profile-file.c" $(pkg-config --libs libdw) || die "pmuvirt-report build"
gcc $dflags -fPIE -pie -pthread -o "$root/vmtest-pie" "$src"/test/vm-linux/vmtest*.c \
	"$src/lib/user/libpmuvirt-user.c" || die "vmtest-pie build"
vm_libs "$root/pmuvirt-report" "$root/vmtest-pie"
# setuid root (mode 4755, owner 0 in the archive) for the exec checks
gcc $cflags -o "$root/suidprobe" "$src/test/vm-linux/suidprobe.c" || die "suidprobe build"
chmod 4755 "$root/suidprobe"
vm_pack

# boot NAME SMP QEMU_ARGS...: one guest run; 0 when it printed the pass marker.
boot() {
	name=$1 smp=$2
	shift 2
	log=$out/console-$name.log
	echo "vm-linux: booting the $name guest ($smp CPU)"
	vm_qemu_x86 "$log" "${PMUVIRT_VM_TIMEOUT:-240}" 512 "vmmode=$name" -smp "$smp" "$@"
	vm_console "$log" | grep '^vm: ' | grep -v 'malformed attach\|dmesg' || true
	if vm_console "$log" | grep -q '^PMUVIRT-VM-RESULT: PASS'; then
		return 0
	fi
	echo "vm-linux: $name console log follows"
	cat "$log"
	return 1
}

# icount: one instruction = 1 ns = one TSC tick, idle time skipped.  QEMU 7.2
# brings up a second CPU under -icount only very slowly, so this guest has
# one CPU.  smp: two CPUs at host speed, for migration; the truth there is
# the kernel's schedstat.  The TSC is the clocksource (HPET is slow).
# The smp guest runs both CPUs in one TCG thread: with one thread per CPU,
# QEMU 7.2 can keep executing an int3 that the kernel's live patching
# (static keys at insmod) already replaced, and both CPUs hang
# (docs/testing/vm-linux.md, "Both CPUs stuck in int3").
result=0
# shellcheck disable=SC2086
boot icount 1 $vm_icount || result=1
boot smp 2 -accel tcg,thread=single || result=1
[ $result = 0 ] || die "a guest did not pass"
echo "vm-linux: PASS"
