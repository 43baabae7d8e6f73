#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# PAPI's own test suite on pmuvirt: build PAPI with the pmuvirt component
# (papi/build.sh, Debian's source cached in BUILD_DIR) and Xen with pmuvirt
# (tools/xen/fetch-build.sh in XEN_BUILD_DIR), and boot one guest image
# twice at once, each under QEMU with -icount shift=0 on one CPU:
#   native  Debian's kernel, pmuvirt.ko on its own emulated PMU;
#   xen     the same kernel as Xen's PV dom0 on Xen's emulated PMU
#           (pmuvirt-emulate): pmuvirt.ko stacks on Xen's per-VCPU counters.
# Each runs PAPI's run_tests.sh and is judged against docs/papi.md: every
# test that does not pass or skip must be listed there with its reason,
# and at least the documented number must pass.
# usage: run.sh SOURCE_DIR BUILD_DIR [XEN_BUILD_DIR]
#   XEN_BUILD_DIR defaults to BUILD_DIR/xen (the vm-xen job's build
#   directory shares the hypervisor build).   exit 0 pass, 1 fail, 77 skipped
# Environment: PMUVIRT_PAPI_TEST_LIMIT (seconds of guest time per test,
#              default 5), PMUVIRT_VM_TIMEOUT (seconds of QEMU CPU time per boot, default 1500),
#              PMUVIRT_PAPI_BOOTS (the boots: "native xen" by default; with
#              "native" alone Xen is neither built nor booted),
#              PMUVIRT_PAPI_TESTS (tests of the suite, such as
#              "ctests/reset_multiplex ctests/reset": each runs alone and
#              prints its own output instead of run_tests.sh running the
#              suite; the documented counts of passing and skipped tests
#              are not compared then)
set -eu
vm_name=papi
. "$(dirname "$0")/../vm-lib.sh"
vm_dirs "$1" "$2"
xen_build=${3:-$out/xen}
vm_boots PMUVIRT_PAPI_BOOTS
tests=${PMUVIRT_PAPI_TESTS:-}

vm_papi_ready

if has_boot xen; then
	echo "papi: building Xen with pmuvirt"
	start=$(date +%s)
	vm_xen "$xen_build"
	echo "papi: Xen ready in $(($(date +%s) - start)) s"
fi

echo "papi: building the guest image"
vm_root "$src/test/papi/init.sh" /bin/busybox
mkdir -p "$root/papi/share"
cp -a "$prefix/bin" "$root/papi/"
cp -a "$prefix/share/papi" "$root/papi/share/"
# the shared libraries (libc, libm, libgfortran, ...) of the programs (the
# ELF files: the suite has scripts too), where the guest's dynamic loader
# looks for them; libpapi is the copy in /papi/lib
# shellcheck disable=SC2046
vm_papi_libs "$prefix" "$prefix/lib" $(find "$root/papi" -type f -perm -u+x -exec sh -c \
	'for f; do [ "$(head -c 4 "$f")" = "$(printf "\177ELF")" ] && echo "$f"; done' sh {} +)
# ctests/shlib opens libcrypt.so by that name (libcrypt-dev's link)
crypt=/usr/lib/x86_64-linux-gnu/libcrypt.so
[ -e "$crypt" ] && mkdir -p "$root/usr/lib/x86_64-linux-gnu" && cp -L "$crypt" "$root$crypt"
mkdir -p "$root/papi/harness"
cp "$src/test/papi/valgrind.sh" "$root/papi/harness/valgrind"
chmod +x "$root/papi/harness/valgrind"
doc=$src/docs/papi.md
doc_list "$doc" papi-excluded >"$root/papi-excluded.txt"
{ doc_list "$doc" papi-excluded; doc_list "$doc" papi-xen-excluded; } | sort -u >"$root/papi-excluded-xen.txt"
echo "${PMUVIRT_PAPI_TEST_LIMIT:-5}" >"$root/papi-limit.txt"
: >"$root/papi-tests.txt"
for _t in $tests; do
	[ -x "$prefix/share/papi/$_t" ] || die "PMUVIRT_PAPI_TESTS: no test $_t in PAPI's suite"
	echo "$_t" >>"$root/papi-tests.txt"
done
vm_pack

# Both boots at once, each on one CPU under -icount shift=0: one
# instruction is one TSC tick, so the emulated PMUs' counts are
# deterministic and each test's time limit is in instructions, whatever
# the host's load.
secs=${PMUVIRT_VM_TIMEOUT:-1500}
echo "papi: booting: $boots"
vm_boot_both "$boots" "$secs" pmuvirt_papi_xen

# judge NAME LOG KNOWN MIN_LABEL MAX_SKIP_LABEL: one boot's console against
# the doc's known failures (list KNOWN), minimum of passes ("MIN_LABEL N")
# and maximum of skips ("MAX_SKIP_LABEL N"); sets result=1 on a failure.
# Files NAME-console.txt, NAME-results.txt in OUT.
result=0
judge() {
	_c=$out/$1-console.txt _r=$out/$1-results.txt
	vm_text "$2" "$_c"
	grep '^vm: ' "$_c" || true
	vm_guest_done "$1" "$_c" PAPI-VM-DONE || { result=1; return; }
	sed -n '/^PAPI-OUTPUT-BEGIN: papi_command_line/,/^PAPI-OUTPUT-END/p' "$_c"
	sed -n '/^PAPI-RUN-TESTS-BEGIN/,/^PAPI-RUN-TESTS-END/p' "$_c" |
		awk -f "$src/test/papi/results.awk" >"$_r"
	doc_list "$doc" "$3" >"$out/$1-known.txt"
	if [ -n "$tests" ]; then
		# only the selected tests' entries
		sort -u "$out/initramfs/papi-tests.txt" | comm -12 - "$out/$1-known.txt" >"$out/$1-known.sel"
		mv "$out/$1-known.sel" "$out/$1-known.txt"
	fi
	_min=$(doc_min "$doc" "$4")
	[ -n "$_min" ] || die "docs/papi.md has no '$4 N' line"
	_maxskip=$(doc_min "$doc" "$5")
	[ -n "$_maxskip" ] || die "docs/papi.md has no '$5 N' line"
	if [ -n "$tests" ]; then
		echo "papi: $1: PMUVIRT_PAPI_TESTS: the documented counts are not compared"
		_min=0 _maxskip=$(wc -l <"$_r")
		[ "$(wc -l <"$_r")" = "$(wc -w <"$out/initramfs/papi-tests.txt")" ] ||
			{ echo "papi: $1: not every test of PMUVIRT_PAPI_TESTS gave a result"; result=1; }
	fi
	judge_results "$1" "$_r" "$out/$1-known.txt" "$_min" "$_maxskip"
	vm_guest_clean "$1" "$_c" || result=1
}

if has_boot native; then
	judge native "$out/console.log" papi-known-failures "Passing tests: at least" \
		"Skipped tests: at most"
fi
if has_boot xen; then
	judge xen "$out/console-xen.log" papi-xen-known-failures "Passing tests in Xen's dom0: at least" \
		"Skipped tests in Xen's dom0: at most"
	# dom0's module must sit on Xen's emulated PMU, not on the (absent) hardware
	vm_guest_on_xen xen "$out/xen-console.txt" || result=1
fi
[ $result = 0 ] || die "see the consoles $out/*-console.txt and their results"
echo "papi: PASS"
