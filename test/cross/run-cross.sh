#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Cross-build the whole project (library, tests, tools) for ARCH and run its
# unit and sim tests under the target's emulator.
#
# usage: test/cross/run-cross.sh ARCH [BUILD_DIR]
#   ARCH       ppc64 (big-endian), ppc64le or i686
#   BUILD_DIR  default: <source>/build-cross-ARCH
#
# cmocka for the target is built from Debian's cmocka source package and
# cached in BUILD_DIR/cmocka.  PMUVIRT_CMOCKA_SRC=<dir> uses an unpacked
# cmocka source tree instead of fetching one.
set -eu

die() {
	echo "run-cross: $*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: $0 ppc64|ppc64le|i686 [BUILD_DIR]"
arch=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$src/build-cross-$arch}
case "$arch" in
ppc64)   triple=powerpc64-linux-gnu;   emu=qemu-ppc64 ;;
ppc64le) triple=powerpc64le-linux-gnu; emu=qemu-ppc64le ;;
i686)    triple=i686-linux-gnu;        emu= ;;
*) die "unknown ARCH '$arch' (ppc64, ppc64le, i686)" ;;
esac
toolchain=$src/cmake/toolchain-$arch.cmake
sysroot=/usr/$triple

"$src/tools/install-deps.sh" cross ||
	die "cross toolchains missing: run 'tools/install-deps.sh cross' as root"
command -v "$triple-gcc" >/dev/null || die "$triple-gcc not found (tools/install-deps.sh cross)"
command -v cmake >/dev/null || die "cmake not found (tools/install-deps.sh base)"
[ -d "$sysroot/lib" ] || die "no sysroot $sysroot (tools/install-deps.sh cross)"

mkdir -p "$build"
build=$(cd "$build" && pwd)
emu_opt=
if [ -n "$emu" ]; then
	command -v "$emu" >/dev/null || die "$emu not found (Debian qemu-user: tools/install-deps.sh cross)"
else
	# i686 runs natively when the kernel has 32-bit support and the
	# i386 loader is installed; otherwise fall back to qemu-i386.
	probe=$build/probe-exec
	printf 'int main(void) { return 42; }\n' > "$probe.c"
	"$triple-gcc" -o "$probe" "$probe.c" || die "$triple-gcc cannot link a program"
	rc=0
	"$probe" 2>/dev/null || rc=$?
	if [ "$rc" = 42 ]; then
		echo "run-cross: i686 programs run natively"
	elif command -v qemu-i386 >/dev/null; then
		echo "run-cross: i686 programs do not run natively; using qemu-i386"
		emu_opt="-DCMAKE_CROSSCOMPILING_EMULATOR=qemu-i386;-L;$sysroot"
		# Debian 12's qemu-i386 (7.2) does not run a new thread while
		# another one spins: a two-thread test never ends there.
		no_threads=1
	else
		die "this machine cannot run i686 programs (needs libc6-i386 or qemu-user)"
	fi
fi

# --- cmocka for the target --------------------------------------------------
cm=$build/cmocka
cmlib=$cm/prefix/lib/libcmocka-static.a
if [ ! -f "$cmlib" ]; then
	cmsrc=${PMUVIRT_CMOCKA_SRC:-}
	if [ -z "$cmsrc" ]; then
		cmsrc=$(ls -d "$cm"/src/cmocka-*/ 2>/dev/null | head -n 1 || true)
	fi
	if [ -z "$cmsrc" ]; then
		# A private apt state with deb-src entries derived from the
		# machine's own Debian sources; the system's apt is not touched.
		sources=/etc/apt/sources.list.d/debian.sources
		[ -f "$sources" ] || die "$sources missing: set PMUVIRT_CMOCKA_SRC to a cmocka source tree"
		command -v dpkg-source >/dev/null ||
			die "dpkg-source missing (tools/install-deps.sh cross)"
		apt=$cm/apt
		mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial" "$cm/src"
		sed 's/^Types:.*/Types: deb-src/' "$sources" > "$apt/sources.list.d/deb-src.sources"
		set -- -o Dir::Etc::SourceList=/dev/null \
			-o Dir::Etc::SourceParts="$apt/sources.list.d" \
			-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
			-o APT::Sandbox::User="$(id -un)" -o Debug::NoLocking=1
		apt-get -q "$@" update >"$apt/update.log" 2>&1 ||
			die "apt-get update for deb-src failed (see $apt/update.log)"
		(cd "$cm/src" && apt-get -q "$@" source cmocka) >"$apt/source.log" 2>&1 ||
			die "apt-get source cmocka failed (see $apt/source.log)"
		cmsrc=$(ls -d "$cm"/src/cmocka-*/ | head -n 1)
	fi
	[ -f "$cmsrc/CMakeLists.txt" ] || die "no cmocka source in '$cmsrc'"
	echo "run-cross: building cmocka for $arch from $cmsrc"
	cmake -S "$cmsrc" -B "$cm/build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$cm/prefix" \
		-DCMAKE_INSTALL_LIBDIR=lib -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF \
		-DUNIT_TESTING=OFF >"$cm/configure.log" 2>&1 ||
		die "cmocka configure failed (see $cm/configure.log)"
	cmake --build "$cm/build" -j 2 >"$cm/build.log" 2>&1 &&
		cmake --install "$cm/build" >>"$cm/build.log" 2>&1 ||
		die "cmocka build failed (see $cm/build.log)"
	[ -f "$cmlib" ] || die "cmocka build did not produce $cmlib"
fi

# --- the project ------------------------------------------------------------
echo "run-cross: configuring $arch in $build"
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
	-DPMUVIRT_TESTS=ON -DPMUVIRT_TOOLS=ON \
	-DCMOCKA_INCLUDE_DIR="$cm/prefix/include" -DCMOCKA_LIBRARY="$cmlib" \
	${emu_opt:+"$emu_opt"} >"$build/configure.log" 2>&1 ||
	{ cat "$build/configure.log" >&2; die "configure failed"; }
cmake --build "$build" -j 2 >"$build/build.log" 2>&1 ||
	{ tail -n 40 "$build/build.log" >&2; die "build failed (see $build/build.log)"; }

# Prove the binaries are for the target, not the build machine.
lib=$build/libpmuvirt.a
[ -f "$lib" ] || die "no $lib"
"$triple-objdump" -f "$lib" | grep -m 1 'file format' | sed 's/^/run-cross: /'

# Tests that hand a target program to a script cannot run it here unless
# the script uses the emulator; list them instead of failing on "Exec
# format error".  The simulator's seed batteries are too slow under
# emulation; PMUVIRT_CROSS_FULL=1 runs them as well.  Tests that check the
# build machine's side (installing and building a consumer with the host
# compiler) are named in PMUVIRT_CROSS_EXCLUDE.
command -v python3 >/dev/null || die "python3 not found (tools/install-deps.sh base)"
skip=$(cd "$build" && ctest --show-only=json-v1 -L '^(unit|sim)$' | \
	python3 -c '
import json, os, sys
build, emulated, full = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
excl = sys.argv[4].split()
no_threads = sys.argv[5] == "1"
def target_elf(path):
	if not path.startswith(build + "/") or not os.path.isfile(path):
		return False
	with open(path, "rb") as f:
		return f.read(4) == b"\x7fELF"
for t in json.load(sys.stdin)["tests"]:
	cmd = t.get("command") or []
	if not full and t["name"].startswith("sim_battery_"):
		print(t["name"], "seed battery (slow under emulation)")
	elif emulated and cmd and target_elf(cmd[0]):
		print(t["name"], "runs a target program without the emulator (COMMAND $<TARGET_FILE:x>"
		      " instead of the target name x)")
	elif emulated and cmd and any(target_elf(a) for a in cmd[1:]) and \
			os.path.basename(cmd[0]).find("qemu") < 0 and \
			not any(p.get("name") == "ENVIRONMENT" and
				any(str(v).startswith("SIM_EMU=") for v in p.get("value", []))
				for p in t.get("properties", [])):
		print(t["name"], "hands a target program to", os.path.basename(cmd[1] if
		      len(cmd) > 1 else cmd[0]), "which runs it without the emulator")
	elif t["name"] in excl:
		print(t["name"], "host-only test (PMUVIRT_CROSS_EXCLUDE)")
	elif no_threads and t["name"].endswith("_threads"):
		print(t["name"], "two threads, which this qemu-i386 does not run while one spins")
' "$build" "$([ -n "$emu$emu_opt" ] && echo 1 || echo 0)" "${PMUVIRT_CROSS_FULL:-0}" \
	"${PMUVIRT_CROSS_EXCLUDE-install-consumer}" "${no_threads:-0}")
exclude=
if [ -n "$skip" ]; then
	echo "run-cross: $arch: not run:"
	echo "$skip" | sed 's/^/run-cross:   /'
	exclude=$(echo "$skip" | awk '{ printf "%s^%s$", (NR > 1 ? "|" : ""), $1 }')
fi

n=$(cd "$build" && ctest -N -L '^(unit|sim)$' ${exclude:+-E "$exclude"} | sed -n 's/^Total Tests: //p')
echo "run-cross: $arch: running ${n:-0} unit/sim tests${emu:+ under $emu}"
if [ "${n:-0}" = 0 ]; then
	echo "run-cross: $arch: build OK; no unit or sim tests are defined yet"
	exit 0
fi
cd "$build" && ctest -L '^(unit|sim)$' ${exclude:+-E "$exclude"} --output-on-failure -j 2 ||
	die "$arch: unit/sim tests failed"
echo "run-cross: $arch: PASS (${n} tests)"
