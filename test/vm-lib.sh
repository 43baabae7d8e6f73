# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by the scripts that boot a Linux guest (test/vm-linux/run.sh,
# test/vm-ppc/run.sh, test/vm-xen/run.sh, test/papi/run.sh, test/tau/run.sh,
# test/hpctoolkit/run.sh, bench/vm-compare.sh): the steps they share.  The caller sets `vm_name` (the prefix of every message) first.
#
#   vm_dirs SRC OUT           sets src and out (absolute; OUT/cache made)
#   skip MSG, die MSG         "NAME: SKIP: MSG" exit 77, "NAME: FAIL: MSG" exit 1
#   vm_deps GROUP...          tools/install-deps.sh GROUP...; skip when that fails
#   vm_module                 pmuvirt.ko for Debian's amd64 kernel $kver in OUT/module
#   vm_root INIT BUSYBOX      a new guest tree in OUT/initramfs (sets root):
#                             INIT as /init, BUSYBOX, pmuvirt.ko, the mount points
#   vm_programs CC            vmtest and pmuvirt-stat, static, into the tree
#                             (sets cflags, the flags of every guest program)
#   vm_libs PROGRAM...        the shared libraries the programs link (ldd),
#                             at the same paths in the tree; dies without
#                             the dynamic loader
#   vm_pack                   OUT/initramfs.cpio.gz from the tree
#   vm_qemu_x86 LOG SECS MEM APPEND [QEMU_ARGS...]
#                             Debian's kernel $vmlinuz under qemu-system-x86_64
#                             (-cpu qemu64) with the initramfs, the console in
#                             LOG; stopped after SECS s of QEMU's CPU time
#                             (vm_limited); says how long QEMU ran, in wall
#                             and CPU time; never fails
#   vm_limited SECS COMMAND...
#                             COMMAND until SECS s of its CPU time (4 * SECS s
#                             of wall time), its CPU time in $vm_cpu
#   $vm_icount                QEMU arguments of the exact guests: one
#                             instruction is one nanosecond and one TSC tick
#   vm_xen BUILD              the hypervisor with pmuvirt, built by
#                             tools/xen/fetch-build.sh in BUILD (sets xen)
#   vm_qemu_xen LOG SECS XEN_APPEND DOM0_APPEND INITRD [CPU [PCPUS]]
#                             Xen ($xen) under qemu-system-x86_64 (-cpu CPU or Nehalem,
#                             PCPUS physical CPUs, default 1, $vm_icount) with Debian's kernel
#                             $vmlinuz as PV dom0 on INITRD, Xen's and dom0's
#                             consoles in LOG; limits and says as vm_qemu_x86; never fails
#   vm_boot_both BOOTS SECS MARKER
#                             the image OUT/initramfs.cpio.gz booted at once,
#                             each on one CPU under $vm_icount, as BOOTS says:
#                             "native" (Debian's kernel, console OUT/console.log)
#                             and "xen" (as Xen's dom0 on Xen's emulated PMU,
#                             MARKER on dom0's command line, console
#                             OUT/console-xen.log); says how long each QEMU ran
#   vm_boots VAR              the boots of vm_boot_both that the environment
#                             variable VAR names ("native xen" when unset or
#                             empty), checked, in $boots; has_boot NAME: is
#                             NAME one of them
#   vm_papi_ready             what a job on PAPI in vm_boot_both needs first:
#                             its packages (vm_deps vm-linux vm-xen papi) and
#                             QEMU, or skip; Debian's kernel, pmuvirt.ko
#                             (vm_module) and PAPI with the pmuvirt component
#                             (papi/build.sh in OUT/papi-build), its install
#                             prefix in $prefix
#   vm_papi_libs PREFIX LIBPATH PROGRAM...
#                             PAPI's shared libraries from PREFIX in the
#                             tree's /papi/lib (the guest's LD_LIBRARY_PATH)
#                             and the libraries the programs link (vm_libs,
#                             looked up in LIBPATH, a colon list, first),
#                             none of them left under PREFIX in the tree
#   vm_console LOG            the log without carriage returns
#   vm_text LOG FILE          the log in FILE as printable text (a guest
#                             program's output may hold control bytes)
#   vm_guest_done TAG FILE MARKER
#                             whether the guest's console text FILE reached
#                             MARKER; if not, its end and "NAME: TAG: the
#                             guest did not finish", return 1
#   vm_guest_clean TAG FILE   the end of a guest init that loaded pmuvirt.ko:
#                             no kernel warnings ("vm: kernel: " lines), no
#                             context left attached, the module unloaded
#                             ("vm: rmmod ok"); says which not, return 1
#   vm_guest_on_xen TAG FILE  dom0's pmuvirt.ko on Xen's emulated PMU in the
#                             "xen" boot of vm_boot_both; says which not,
#                             return 1
#   doc_list DOC NAME         the `ID` of each "| `ID` | ... |" row between
#                             DOC's lines "<!-- NAME-begin -->" and "<!-- NAME-end -->"
#   doc_min DOC LABEL         N of DOC's line "LABEL N ..." (empty when none)
#   judge_results TAG RESULTS KNOWN MIN MAXSKIP
#                             a suite's results ("ID RESULT" lines, RESULT
#                             PASSED, SKIPPED or anything else for a failure)
#                             against the known failures (file KNOWN, one ID
#                             a line, sorted), at least MIN passes and at
#                             most MAXSKIP skips; prints "NAME: TAG: ..." and
#                             sets result=1 on a failure

vm_dirs() {
	src=$(cd "$1" && pwd)
	mkdir -p "$2/cache"
	out=$(cd "$2" && pwd)
}

skip() {
	echo "$vm_name: SKIP: $*"
	exit 77
}

die() {
	echo "$vm_name: FAIL: $*"
	exit 1
}

vm_deps() {
	if [ "$(id -u)" = 0 ]; then
		sh "$src/tools/install-deps.sh" "$@" || skip "cannot install the $* packages"
	else
		sh "$src/tools/install-deps.sh" "$@" 2>/dev/null ||
			skip "not root and the $* packages are missing (tools/install-deps.sh $*)"
	fi
}

vm_module() {
	make -s -C "$src/src/glue/linux" BUILD="$out/module" KVER="$kver" >"$out/module.log" 2>&1 ||
		{ cat "$out/module.log"; die "module build"; }
}

vm_root() {
	root=$out/initramfs
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
	cp "$2" "$root/bin/busybox"
	cp "$1" "$root/init"
	chmod +x "$root/init"
	cp "$out/module/pmuvirt.ko" "$root/"
}

vm_programs() {
	cflags="-static -O2 -Wall -Wextra -Werror -I$src/include -I$src/lib/user"
	cp "$src/test/vm-guest.sh" "$src/test/vm-profile.sh" "$root/"
	$1 $cflags -pthread -o "$root/vmtest" "$src"/test/vm-linux/vmtest*.c \
		"$src/lib/user/libpmuvirt-user.c" || die "vmtest build"
	$1 $cflags -o "$root/pmuvirt-stat" "$src/tools/pmuvirt-stat/pmuvirt-stat.c" \
		"$src/lib/user/libpmuvirt-user.c" || die "pmuvirt-stat build"
}

vm_libs() {
	for _p in "$@"; do
		ldd "$_p" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'
	done | sort -u | while read -r _lib; do
		mkdir -p "$root$(dirname "$_lib")"
		cp -L "$_lib" "$root$_lib"
	done
	[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || die "no dynamic loader for the guest"
}

vm_pack() {
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out/initramfs.cpio.gz"
}

vm_icount="-icount shift=0,sleep=off,align=off -rtc clock=vm"

# vm_limited SECS COMMAND...: runs COMMAND (QEMU) until it has used SECS s
# of CPU time, or 4 * SECS s of wall time for one that hangs without
# running; its CPU time goes to $vm_cpu.  Under -icount a boot is fixed
# guest work: its CPU time does not depend on the host's load, its wall
# time does.
vm_limited() {
	_lsecs=$1
	shift
	_times=$(mktemp)
	(
		timeout "$((_lsecs * 4))" prlimit --core=0 --cpu="$_lsecs" "$@"
		times >"$_times"
	) || true
	vm_cpu=$(tail -n 1 "$_times" | awk '{ n = 0; for (i = 1; i <= 2; i++) {
		split($i, t, /[ms]/); n += t[1] * 60 + t[2] } printf "%d", n }')
	rm -f "$_times"
}

vm_qemu_x86() {
	_log=$1 _secs=$2 _mem=$3 _append=$4
	shift 4
	_start=$(date +%s)
	vm_limited "$_secs" qemu-system-x86_64 -machine pc -cpu qemu64 -m "$_mem" \
		-nodefaults -display none -serial stdio -no-reboot "$@" \
		-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet nokaslr edd=off mitigations=off tsc=reliable clocksource=tsc $_append" \
		</dev/null >"$_log" 2>&1
	echo "$vm_name: QEMU ran $(($(date +%s) - _start)) s (CPU ${vm_cpu:-?} s)"
}

vm_xen() {
	xen=$(sh "$src/tools/xen/fetch-build.sh" "$1" | tail -n 1)
	[ -f "$xen" ] || die "no hypervisor"
}

# Nehalem: no SMAP (which crashes dom0 here) and an Intel vendor.  A comma
# inside the dom0 command line would end QEMU's module list.  1536 MiB:
# dom0's 768 (its tmpfs holds a saved domU), two domUs of 192 and a third
# copy of one while it migrates.
vm_qemu_xen() {
	_log=$1 _secs=$2
	_start=$(date +%s)
	# pmuvirt-tcg-intr-exit: QEMU's TCG would deliver an interrupt that
	# VMRUN injects twice (docs/testing/vm-xen.md, "QEMU's double delivery of
	# injected interrupts")
	# shellcheck disable=SC2086
	vm_limited "$_secs" qemu-system-x86_64 -M pc -cpu "${6:-Nehalem}" -m 1536 -smp "${7:-1}" \
		$vm_icount -display none -monitor none \
		-serial "file:$_log" -no-reboot -kernel "$xen" \
		-append "console=com1 com1=115200,8n1 dom0_mem=768M,max:768M loglvl=all guest_loglvl=all pmuvirt-tcg-intr-exit $3" \
		-initrd "$vmlinuz console=hvc0 panic=-1 quiet $4,$5" </dev/null
	echo "$vm_name: QEMU ran $(($(date +%s) - _start)) s (CPU ${vm_cpu:-?} s)"
}

vm_boot_both() {
	case " $1 " in *" native "*) _native=1 ;; *) _native=0 ;; esac
	case " $1 " in *" xen "*) _xenb=1 ;; *) _xenb=0 ;; esac
	if [ $_native = 1 ]; then
		# shellcheck disable=SC2086
		vm_qemu_x86 "$out/console.log" "$2" 1024 "" -smp 1 $vm_icount >"$out/qemu-native.txt" &
		_native_pid=$!
	fi
	if [ $_xenb = 1 ]; then
		vm_qemu_xen "$out/console-xen.log" "$2" "dom0_max_vcpus=1 pmuvirt-emulate" "$3" \
			"$out/initramfs.cpio.gz" >"$out/qemu-xen.txt" &
		_xen_pid=$!
	fi
	if [ $_native = 1 ]; then
		wait $_native_pid || true
		sed 's/QEMU ran/QEMU (native) ran/' "$out/qemu-native.txt"
	fi
	if [ $_xenb = 1 ]; then
		wait $_xen_pid || true
		sed 's/QEMU ran/QEMU (Xen) ran/' "$out/qemu-xen.txt"
	fi
}

vm_console() {
	tr -d '\r' <"$1"
}

vm_boots() {
	eval "boots=\${$1:-native xen}"
	for _b in $boots; do
		case $_b in native | xen) ;; *) die "$1: unknown boot $_b (native, xen)" ;; esac
	done
}

has_boot() {
	case " $boots " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

vm_papi_ready() {
	vm_deps vm-linux vm-xen papi
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"
	. "$src/test/vm-linux/kernel-image.sh"
	vm_kernel_image "$out" skip
	echo "$vm_name: kernel $kver ($hver)"
	echo "$vm_name: building pmuvirt.ko"
	vm_module
	echo "$vm_name: building PAPI with the pmuvirt component"
	_start=$(date +%s)
	prefix=$(sh "$src/papi/build.sh" "$out/papi-build" "$out/papi-build/install") ||
		die "PAPI build (logs in $out/papi-build)"
	echo "$vm_name: PAPI ready in $(($(date +%s) - _start)) s"
}

vm_papi_libs() {
	_prefix=$1 _lpath=$2
	shift 2
	mkdir -p "$root/papi"
	cp -a "$_prefix/lib" "$root/papi/"
	rm -f "$root/papi/lib/"*.a
	LD_LIBRARY_PATH=$_lpath
	export LD_LIBRARY_PATH
	vm_libs "$@"
	unset LD_LIBRARY_PATH
	rm -rf "${root:?}$_prefix"
}

vm_text() {
	vm_console "$1" | tr -cd '\11\12\40-\176' >"$2"
}

vm_guest_done() {
	grep -q "^$3" "$2" && return 0
	tail -n 40 "$2"
	echo "$vm_name: $1: the guest did not finish"
	return 1
}

vm_guest_clean() {
	_ok=0
	grep -q '^vm: kernel: ' "$2" && { echo "$vm_name: $1: kernel warnings"; _ok=1; }
	grep -q '^vm: contexts left attached: 0' "$2" || { echo "$vm_name: $1: contexts left attached"; _ok=1; }
	grep -q '^vm: rmmod ok' "$2" || { echo "$vm_name: $1: rmmod failed"; _ok=1; }
	return $_ok
}

vm_guest_on_xen() {
	_ok=0
	grep -q '^(XEN) pmuvirt: pmuvirt-emulate: an EMULATED PMU' "$2" ||
		{ echo "$vm_name: $1: Xen did not start its emulated PMU"; _ok=1; }
	grep -q "^vm: dmesg: pmuvirt: backend: Xen PV .* on Xen's Intel arch perfmon" "$2" ||
		{ echo "$vm_name: $1: pmuvirt.ko is not on Xen's counters"; _ok=1; }
	return $_ok
}

doc_list() {
	sed -n "/^<!-- $2-begin -->/,/^<!-- $2-end -->/p" "$1" | sed -n 's/^| `\([^`]*\)` |.*/\1/p' | sort -u
}

doc_min() {
	sed -n "s/^$2 \([0-9]*\).*/\1/p" "$1"
}

judge_results() {
	_tag=$1 _res=$2 _known=$3 _min=$4 _maxskip=$5
	_all=$(wc -l <"$_res")
	_pass=$(awk '$2 == "PASSED"' "$_res" | wc -l)
	_skip=$(awk '$2 == "SKIPPED"' "$_res" | wc -l)
	echo "$vm_name: $_tag: $_all tests: $_pass passed, $_skip skipped, $((_all - _pass - _skip)) failed (documented: at least $_min passed, at most $_maxskip skipped)"
	awk '$2 != "PASSED" && $2 != "SKIPPED" { print $1 }' "$_res" | sort -u >"$_res.notpassed"
	for _t in $(comm -23 "$_res.notpassed" "$_known"); do
		echo "$vm_name: $_tag: $_t: $(awk -v t="$_t" '$1 == t { print $2 }' "$_res"), not listed in the docs"
		result=1
	done
	for _t in $(comm -13 "$_res.notpassed" "$_known"); do
		echo "$vm_name: $_tag: $_t is listed in the docs but passed or skipped"
	done
	[ "$_pass" -ge "$_min" ] || { echo "$vm_name: $_tag: fewer than $_min tests passed"; result=1; }
	if [ "$_skip" -gt "$_maxskip" ]; then
		echo "$vm_name: $_tag: more than $_maxskip tests skipped:"
		awk -v p="$vm_name:   " '$2 == "SKIPPED" { print p $1 }' "$_res"
		result=1
	fi
}
