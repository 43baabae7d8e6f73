#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# pmuvirt.ko against perf, side by side, in the vm-linux icount guest
# (-icount shift=0: one instruction = one TSC tick): ticks per read of a
# thread's count and ticks added per context switch (bench/vm-compare.c).
# A benchmark, not a test: it is not registered in CTest.
# usage: bench/vm-compare.sh [OUT_DIR [REPS]]     (default build/vm-compare, 5)
set -eu
vm_name=vm-compare
. "$(dirname "$0")/../test/vm-lib.sh"
vm_dirs "$(dirname "$0")/.." "${1:-build/vm-compare}"
reps=${2:-5}

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (tools/install-deps.sh vm-linux)"
# the kernel image of test/vm-linux/run.sh
. "$src/test/vm-linux/kernel-image.sh"
vm_kernel_image "$out" die

vm_module
vm_root "$src/bench/vm-compare-init.sh" /bin/busybox
gcc -static -O2 -Wall -Wextra -Werror -I"$src/include" -I"$src/lib/user" -pthread \
	-o "$root/vm-compare" "$src/bench/vm-compare.c" "$src/lib/user/libpmuvirt-user.c" ||
	die "vm-compare build"
vm_pack

# the icount guest of test/vm-linux/run.sh: one CPU, same machine and command line
log=$out/console.log
echo "vm-compare: kernel $kver ($hver), QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), $reps repetitions"
# shellcheck disable=SC2086
vm_qemu_x86 "$log" "${PMUVIRT_VM_TIMEOUT:-1200}" 512 "vmcreps=$reps" -smp 1 $vm_icount
vm_console "$log" | sed -n 's/^vmc: \{0,1\}//p'
vm_console "$log" | grep -q '^VM-COMPARE-RESULT: DONE' || { cat "$log"; die "the guest did not finish"; }
