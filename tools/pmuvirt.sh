#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The two jobs of the README's quick start.
#   tools/pmuvirt.sh demo   install what is missing, build, run the simulator
#                           on the Perfctr-Xen Figure 5 scenario
#   tools/pmuvirt.sh test   install what is missing, build, run every test
#                           (all CTest labels) and the sanitizer build
#   tools/pmuvirt.sh papi   install what is missing, build, run the papi job
#                           alone (PAPI's own test suite on pmuvirt,
#                           docs/papi.md)
# Environment: BUILD (default build), JOBS (default: number of CPUs).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

configure_and_build() {
	cmake -S "$top" -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo $2 >/dev/null
	cmake --build "$1" -j "$jobs" >/dev/null
}

case "${1:-}" in
demo)
	"$top/tools/install-deps.sh" base
	configure_and_build "$build" ""
	"$build/tools/sim/pmuvirt-sim" run "$top/examples/figure5.scn"
	;;
test)
	"$top/tools/install-deps.sh" base cross qemu-ppc vm-linux vm-ppc vm-xen fuzz model papi
	configure_and_build "$build" ""
	echo "== all tests (labels: unit sim cross qemu-ppc vm-linux vm-ppc vm-xen papi tau hpctoolkit fuzz model; tau needs TAU_SRC, hpctoolkit HPCTOOLKIT)"
	# ctest's output, and again at its end why each failing test failed
	# (the FAIL lines of the VM jobs), which the log's middle would hide.
	rc=0
	ctest --test-dir "$build" --output-on-failure -j "$jobs" --output-log "$build/ctest-all.log" || rc=$?
	if [ $rc != 0 ]; then
		echo "== why the failing tests failed (their FAIL lines; all output in $build/ctest-all.log)"
		grep -a -E '^([A-Za-z0-9_.-]+: )+(FAIL|missing on the console)' "$build/ctest-all.log" | tail -n 30 || true
		exit $rc
	fi
	echo "== unit and sim tests again under AddressSanitizer and UndefinedBehaviorSanitizer"
	configure_and_build "$build-san" "-DPMUVIRT_SANITIZE=ON"
	ctest --test-dir "$build-san" --output-on-failure -j "$jobs" -L 'unit|sim'
	;;
papi)
	"$top/tools/install-deps.sh" base papi
	configure_and_build "$build" ""
	ctest --test-dir "$build" --output-on-failure -L papi
	;;
*)
	echo "usage: tools/pmuvirt.sh demo|test|papi" >&2
	exit 2
	;;
esac
