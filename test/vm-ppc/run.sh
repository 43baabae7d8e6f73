#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# pmuvirt.ko on POWER in a real kernel: cross-build the module against
# Debian's ppc64el kernel headers (test/vm-ppc/kernel.sh), boot Debian's
# ppc64el kernel under qemu-system-ppc64 -M pseries (QEMU 10 from
# bookworm-backports: it raises the performance monitor interrupt) with a
# busybox-static:ppc64el initramfs, and run vmtest (test/vm-linux/vmtest*.c) inside.
# usage: run.sh SOURCE_DIR BUILD_DIR [QEMU10_DIR]   exit 0 pass, 1 fail, 77 skipped
# QEMU10_DIR defaults to BUILD_DIR/qemu10 (the qemu-ppc job's can be shared).
set -eu
vm_name=vm-ppc
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$1" "$2"
q10=${3:-$out/qemu10}

vm_deps vm-ppc
for t in powerpc64le-linux-gnu-gcc cpio dpkg-deb apt-get; do
	command -v $t >/dev/null || skip "$t missing"
done

. "$src/test/vm-ppc/kernel.sh"
. "$src/test/qemu-ppc/qemu10.sh"
# a download that fails is a skip (no network), not a failure of pmuvirt
vm_ppc_kernel "$src" "$out" skip
echo "vm-ppc: kernel $kver ($hver)"
vm_ppc_busybox "$out" skip
fetch_qemu10 "$src" "$q10" || skip "cannot fetch QEMU 10 from bookworm-backports (see $q10/*.log)"
qemu="$q10/root/usr/bin/qemu-system-ppc64 -L $q10/root/usr/share/qemu"
echo "vm-ppc: $($qemu --version | head -n 1)"

echo "vm-ppc: building pmuvirt.ko"
vm_ppc_module "$src" "$out" || { cat "$out/module.log"; die "module build"; }
grep -E "warning|error" "$out/module.log" && die "the module build has warnings (above)"

echo "vm-ppc: building the guest programs"
vm_root "$src/test/vm-ppc/init.sh" "$busybox"
vm_programs powerpc64le-linux-gnu-gcc
vm_pack

# One CPU under -icount shift=0: one instruction per nanosecond of virtual
# time, PMC6 (cycles) equal to instructions, the time base 512 MHz.
# The capabilities are those QEMU's TCG can provide.
log=$out/console.log
echo "vm-ppc: booting (power9, 1 CPU, -icount shift=0)"
start=$(date +%s)
# shellcheck disable=SC2086
timeout "${PMUVIRT_VM_TIMEOUT:-240}" $qemu \
	-M pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off \
	-cpu power9 -m 1G -smp 1 -icount shift=0,sleep=off,align=off -rtc clock=vm \
	-nodefaults -nographic -serial stdio -monitor none -no-reboot \
	-kernel "$vmlinux" -initrd "$out/initramfs.cpio.gz" \
	-append "console=hvc0 panic=-1 quiet ${PMUVIRT_VM_APPEND:-}" </dev/null >"$log" 2>&1 || true
echo "vm-ppc: the guest ran $(($(date +%s) - start)) s"
vm_console "$log" | grep '^vm: ' || true
vm_console "$log" | grep -q '^PMUVIRT-VM-RESULT: PASS' && { echo "vm-ppc: PASS"; exit 0; }
echo "vm-ppc: console log follows"
cat "$log"
die "the guest did not pass"
