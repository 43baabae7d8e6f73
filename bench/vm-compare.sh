#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# pmuvirt.ko against perf, side by side, in the vm-linux icount guest
# (-icount shift=0: one instruction = one TSC tick): ticks per read of a
# thread's count and ticks added per context switch (bench/vm-compare.c).
# A benchmark, not a test: it is not registered in CTest.
# usage: bench/vm-compare.sh [OUT_DIR [REPS]]     (default build/vm-compare, 5)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build/vm-compare}
reps=${2:-5}
mkdir -p "$out/cache"
out=$(cd "$out" && pwd)

die() { echo "vm-compare: $*" >&2; exit 1; }

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (tools/install-deps.sh vm-linux)"
# the kernel image of test/vm-linux/run.sh
. "$src/test/vm-linux/kernel-image.sh"
vm_kernel_image "$out" die

make -s -C "$src/src/glue/linux" BUILD="$out/module" KVER="$kver" >"$out/module.log" 2>&1 ||
	{ cat "$out/module.log"; die "module build"; }
root=$out/initramfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
gcc -static -O2 -Wall -Wextra -Werror -I"$src/include" -I"$src/tools/pmuvirt-stat" -pthread \
	-o "$root/vm-compare" "$src/bench/vm-compare.c" "$src/tools/pmuvirt-stat/libpmuvirt-user.c" ||
	die "vm-compare build"
cp /bin/busybox "$root/bin/busybox"
cp "$src/bench/vm-compare-init.sh" "$root/init"
chmod +x "$root/init"
cp "$out/module/pmuvirt.ko" "$root/"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out/initramfs.cpio.gz"

# the icount guest of test/vm-linux/run.sh: one CPU, same machine and command line
log=$out/console.log
echo "vm-compare: kernel $kver ($hver), QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), $reps repetitions"
start=$(date +%s)
timeout "${PMUVIRT_VM_TIMEOUT:-1200}" qemu-system-x86_64 -machine pc -cpu qemu64 \
	-smp 1 -m 512 -nodefaults -display none -serial stdio -no-reboot \
	-icount shift=0,sleep=off,align=off -rtc clock=vm \
	-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet nokaslr edd=off mitigations=off tsc=reliable clocksource=tsc vmcreps=$reps" \
	</dev/null >"$log" 2>&1 || true
echo "vm-compare: the guest ran $(($(date +%s) - start)) s"
tr -d '\r' <"$log" | sed -n 's/^vmc: \{0,1\}//p'
tr -d '\r' <"$log" | grep -q '^VM-COMPARE-RESULT: DONE' || { cat "$log"; die "the guest did not finish"; }
