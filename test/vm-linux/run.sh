#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Build pmuvirt.ko against Debian's linux-headers-amd64, boot the matching
# Debian kernel under qemu-system-x86_64 (TCG, -icount shift=0) with a
# busybox initramfs, and run test/vm-linux/vmtest.c inside.
# usage: run.sh SOURCE_DIR BUILD_DIR       exit 0 pass, 1 fail, 77 skipped
set -eu
src=$(cd "$1" && pwd)
out=$2
mkdir -p "$out/cache"
out=$(cd "$out" && pwd)
log=$out/console.log

skip() { echo "vm-linux: SKIP: $*"; exit 77; }
die() { echo "vm-linux: FAIL: $*"; exit 1; }

if [ "$(id -u)" = 0 ]; then
	sh "$src/tools/install-deps.sh" vm-linux || skip "cannot install the vm-linux packages"
else
	sh "$src/tools/install-deps.sh" vm-linux 2>/dev/null ||
		skip "not root and the vm-linux packages are missing (tools/install-deps.sh vm-linux)"
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"

. "$src/test/vm-linux/kernel-image.sh"
vm_kernel_image "$out" skip
echo "vm-linux: kernel $kver ($hver)"

echo "vm-linux: building pmuvirt.ko"
make -s -C "$src/src/glue/linux" BUILD="$out/module" KVER="$kver" >"$out/module.log" 2>&1 ||
	{ cat "$out/module.log"; die "module build"; }
grep -E "warning|error" "$out/module.log" && echo "vm-linux: the module build has warnings (above)"

echo "vm-linux: building the guest programs"
root=$out/initramfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
cflags="-static -O2 -Wall -Wextra -Werror -I$src/include -I$src/tools/pmuvirt-stat"
gcc $cflags -pthread -o "$root/vmtest" "$src/test/vm-linux/vmtest.c" \
	"$src/tools/pmuvirt-stat/libpmuvirt-user.c" || die "vmtest build"
gcc $cflags -o "$root/pmuvirt-stat" "$src/tools/pmuvirt-stat/pmuvirt-stat.c" \
	"$src/tools/pmuvirt-stat/libpmuvirt-user.c" || die "pmuvirt-stat build"
# setuid root (mode 4755, owner 0 in the archive) for the exec checks
gcc $cflags -o "$root/suidprobe" "$src/test/vm-linux/suidprobe.c" || die "suidprobe build"
chmod 4755 "$root/suidprobe"
cp /bin/busybox "$root/bin/busybox"
cp "$src/test/vm-linux/init.sh" "$root/init"
chmod +x "$root/init"
cp "$out/module/pmuvirt.ko" "$root/"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out/initramfs.cpio.gz"

# boot NAME SMP QEMU_ARGS...: one guest run; 0 when it printed the pass marker.
boot() {
	name=$1 smp=$2
	shift 2
	log=$out/console-$name.log
	echo "vm-linux: booting the $name guest ($smp CPU)"
	start=$(date +%s)
	timeout "${PMUVIRT_VM_TIMEOUT:-240}" qemu-system-x86_64 -machine pc -cpu qemu64 \
		-smp "$smp" -m 512 -nodefaults -display none -serial stdio -no-reboot "$@" \
		-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet nokaslr edd=off mitigations=off tsc=reliable clocksource=tsc vmmode=$name" \
		</dev/null >"$log" 2>&1 || true
	echo "vm-linux: $name guest ran $(($(date +%s) - start)) s"
	tr -d '\r' <"$log" | grep '^vm: ' | grep -v 'malformed attach\|dmesg' || true
	if tr -d '\r' <"$log" | grep -q '^PMUVIRT-VM-RESULT: PASS'; then
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
# (docs/linux.md, "Both CPUs stuck in int3").
result=0
boot icount 1 -icount shift=0,sleep=off,align=off -rtc clock=vm || result=1
boot smp 2 -accel tcg,thread=single || result=1
[ $result = 0 ] || die "a guest did not pass"
echo "vm-linux: PASS"
