#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sampling skid of pmuvirt.ko per backend (bench/skid.c, docs/sampling.md
# "Skid"): how many instructions lie between the one that made the
# sampling counter overflow and the IP of its record.  Boots, one after
# the other, the icount guests of the VM tests:
#   x86  Debian's amd64 kernel, the module's emulated PMU (test/vm-linux)
#   ppc  Debian's ppc64el kernel on QEMU 10's POWER9 PMU (test/vm-ppc)
# A benchmark, not a test: it is not registered in CTest.
# usage: bench/skid.sh [OUT_DIR [RUNS]]     (default build/skid, 2 runs per boot)
# SKID_BACKENDS (default "x86 ppc"), SKID_PERIOD (20011), SKID_SAMPLES
# (10000), SKID_QEMU10 (QEMU 10's directory, default OUT_DIR/../qemu-ppc/qemu10,
# the qemu-ppc job's).
set -eu
vm_name=skid
. "$(dirname "$0")/../test/vm-lib.sh"
vm_dirs "$(dirname "$0")/.." "${1:-build/skid}"
top=$out
runs=${2:-2}
append="skidreps=$runs skidperiod=${SKID_PERIOD:-20011} skidsamples=${SKID_SAMPLES:-10000}"

# report LOG: the program's lines, and whether the guest finished
report() {
	vm_console "$1" | sed -n 's/^skid: \{0,1\}/  /p; /^SKID-RESULT/p'
	vm_console "$1" | grep -q '^SKID-DONE' || { cat "$1"; die "the guest did not finish"; }
}

x86() {
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (tools/install-deps.sh vm-linux)"
	mkdir -p "$top/x86/cache"
	out=$top/x86
	. "$src/test/vm-linux/kernel-image.sh"
	vm_kernel_image "$out" die
	vm_module
	vm_root "$src/bench/skid-init.sh" /bin/busybox
	gcc -static -O2 -Wall -Wextra -Werror -I"$src/include" -I"$src/lib/user" \
		-o "$root/skid" "$src/bench/skid.c" "$src/lib/user/libpmuvirt-user.c" || die "skid build (x86)"
	vm_pack
	echo "skid: x86: kernel $kver, QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), emulated PMU, -icount shift=0"
	# the icount guest of test/vm-linux/run.sh: one CPU, same machine and command line
	# shellcheck disable=SC2086
	vm_qemu_x86 "$out/console.log" "${PMUVIRT_VM_TIMEOUT:-600}" 512 "$append" -smp 1 $vm_icount
	report "$out/console.log"
}

ppc() {
	for t in powerpc64le-linux-gnu-gcc cpio dpkg-deb apt-get; do
		command -v $t >/dev/null || die "$t missing (tools/install-deps.sh vm-ppc)"
	done
	mkdir -p "$top/ppc/cache"
	out=$top/ppc
	q10=${SKID_QEMU10:-$top/../qemu-ppc/qemu10}
	. "$src/test/vm-ppc/kernel.sh"
	. "$src/test/qemu-ppc/qemu10.sh"
	vm_ppc_kernel "$src" "$out" die
	vm_ppc_busybox "$out" die
	fetch_qemu10 "$src" "$q10" || die "cannot fetch QEMU 10 (see $q10/*.log)"
	qemu="$q10/root/usr/bin/qemu-system-ppc64 -L $q10/root/usr/share/qemu"
	vm_ppc_module "$src" "$out" || { cat "$out/module.log"; die "module build (ppc)"; }
	vm_root "$src/bench/skid-init.sh" "$busybox"
	powerpc64le-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -I"$src/include" -I"$src/lib/user" \
		-o "$root/skid" "$src/bench/skid.c" "$src/lib/user/libpmuvirt-user.c" || die "skid build (ppc)"
	vm_pack
	echo "skid: ppc: kernel $kver, $($qemu --version | head -n 1), power9, -icount shift=0"
	# the guest of test/vm-ppc/run.sh
	start=$(date +%s)
	# shellcheck disable=SC2086
	timeout "${PMUVIRT_VM_TIMEOUT:-600}" $qemu \
		-M pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off \
		-cpu power9 -m 1G -smp 1 -icount shift=0,sleep=off,align=off -rtc clock=vm \
		-nodefaults -nographic -serial stdio -monitor none -no-reboot \
		-kernel "$vmlinux" -initrd "$out/initramfs.cpio.gz" \
		-append "console=hvc0 panic=-1 quiet $append" </dev/null >"$out/console.log" 2>&1 || true
	echo "skid: QEMU ran $(($(date +%s) - start)) s"
	report "$out/console.log"
}

for b in ${SKID_BACKENDS:-x86 ppc}; do
	case $b in
	x86) x86 ;;
	ppc) ppc ;;
	*) die "unknown backend $b (x86, ppc)" ;;
	esac
done
