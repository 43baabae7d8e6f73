#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# PAPI's own test suite on pmuvirt: build PAPI with the pmuvirt component
# (papi/build.sh, Debian's source cached in BUILD_DIR), boot Debian's kernel
# under QEMU with pmuvirt.ko on its emulated PMU, run PAPI's run_tests.sh
# inside and judge it against docs/papi.md: every test that does not pass
# must be listed there with its reason, and at least the documented number
# must pass.
# usage: run.sh SOURCE_DIR BUILD_DIR       exit 0 pass, 1 fail, 77 skipped
set -eu
vm_name=papi
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$1" "$2"

vm_deps vm-linux papi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"

. "$src/test/vm-linux/kernel-image.sh"
vm_kernel_image "$out" skip
echo "papi: kernel $kver ($hver)"

echo "papi: building pmuvirt.ko"
vm_module

echo "papi: building PAPI with the pmuvirt component"
start=$(date +%s)
prefix=$(sh "$src/papi/build.sh" "$out/papi-build" "$out/papi-build/install") ||
	die "PAPI build (logs in $out/papi-build)"
echo "papi: PAPI ready in $(($(date +%s) - start)) s"

echo "papi: building the guest image"
vm_root "$src/test/papi/init.sh" /bin/busybox
mkdir -p "$root/papi/share"
cp -a "$prefix/bin" "$prefix/lib" "$root/papi/"
cp -a "$prefix/share/papi" "$root/papi/share/"
rm -f "$root/papi/lib/"*.a
# the programs' shared libraries (libc, libm, libgfortran, ...), where the
# guest's dynamic loader looks for them
LD_LIBRARY_PATH=$prefix/lib
export LD_LIBRARY_PATH
find "$root/papi" -type f -perm -u+x | while read -r f; do
	ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'
done | sort -u | while read -r lib; do
	case $lib in "$prefix"/*) continue ;; esac
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
unset LD_LIBRARY_PATH
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || die "no dynamic loader found for the guest"
# ctests/shlib opens libcrypt.so by that name (libcrypt-dev's link)
crypt=/usr/lib/x86_64-linux-gnu/libcrypt.so
[ -e "$crypt" ] && mkdir -p "$root/usr/lib/x86_64-linux-gnu" && cp -L "$crypt" "$root$crypt"
mkdir -p "$root/papi/harness"
cp "$src/test/papi/valgrind.sh" "$root/papi/harness/valgrind"
chmod +x "$root/papi/harness/valgrind"
doc=$src/docs/papi.md
# "| `NAME` | ... |" rows between a doc's two markers NAME-begin, NAME-end
doc_list() {
	sed -n "/^<!-- $1-begin -->/,/^<!-- $1-end -->/p" "$doc" | sed -n 's/^| `\([^`]*\)` |.*/\1/p' | sort -u
}
doc_list papi-excluded >"$root/papi-excluded.txt"
echo "${PMUVIRT_PAPI_TEST_LIMIT:-5}" >"$root/papi-limit.txt"
vm_pack

# One CPU under -icount shift=0: one instruction is one TSC tick, so the
# emulated PMU's counts are deterministic.
log=$out/console.log
echo "papi: booting the guest"
# shellcheck disable=SC2086
vm_qemu_x86 "$log" "${PMUVIRT_VM_TIMEOUT:-600}" 1024 "" -smp 1 $vm_icount
# printable text only: a test's output may hold control bytes
vm_console "$log" | tr -cd '\11\12\40-\176' >"$out/console.txt"
grep '^vm: ' "$out/console.txt" || true
grep -q '^PAPI-VM-DONE' "$out/console.txt" || { cat "$out/console.txt"; die "the guest did not finish"; }
sed -n '/^PAPI-OUTPUT-BEGIN: papi_command_line/,/^PAPI-OUTPUT-END/p' "$out/console.txt"

sed -n '/^PAPI-RUN-TESTS-BEGIN/,/^PAPI-RUN-TESTS-END/p' "$out/console.txt" |
	awk -f "$src/test/papi/results.awk" >"$out/results.txt"

# docs/papi.md: the known failures with their reasons, and "Passing
# tests: at least N".
doc_list papi-known-failures >"$out/known.txt"
min=$(sed -n 's/^Passing tests: at least \([0-9]*\).*/\1/p' "$doc")
[ -n "$min" ] || die "docs/papi.md has no 'Passing tests: at least N' line"

pass=$(awk '$2 == "PASSED"' "$out/results.txt" | wc -l)
total=$(wc -l <"$out/results.txt")
echo "papi: $pass of $total tests passed (documented minimum $min)"
awk '$2 != "PASSED" && $2 != "SKIPPED" { print $1 }' "$out/results.txt" | sort -u >"$out/notpassed.txt"
result=0
for t in $(comm -23 "$out/notpassed.txt" "$out/known.txt"); do
	echo "papi: $t: $(awk -v t="$t" '$1 == t { print $2 }' "$out/results.txt"), not listed in docs/papi.md"
	result=1
done
for t in $(comm -13 "$out/notpassed.txt" "$out/known.txt"); do
	echo "papi: $t is listed in docs/papi.md but passed or skipped"
done
[ "$pass" -ge "$min" ] || { echo "papi: fewer than $min tests passed"; result=1; }
grep -q '^vm: kernel: ' "$out/console.txt" && { echo "papi: kernel warnings"; result=1; }
grep -q '^vm: contexts left attached: 0' "$out/console.txt" || { echo "papi: contexts left attached"; result=1; }
grep -q '^vm: rmmod ok' "$out/console.txt" || { echo "papi: rmmod failed"; result=1; }
[ $result = 0 ] || die "see $out/console.txt and $out/results.txt"
echo "papi: PASS"
