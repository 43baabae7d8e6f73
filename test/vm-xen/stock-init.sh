#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the stock boot's domUs (run.sh): Debian's kernel with no
# pmuvirt.ko, on the PMU Xen's pmuvirt emulates for stock guests.  Linux's
# own `perf test` (the tests in /stock/perf-tests.txt),
# then in the HVM domU PAPI's tests on Debian's libpapi (the perf_event
# component): those in /stock/papi-tests.txt, or run_tests.sh when it is
# empty.  The host (run.sh) judges the console.
/bin/busybox --install -s /bin
# Debian's /bin/sh for perf's shell tests (run.sh's comment says why)
ln -sf /usr/bin/dash /bin/sh
export PATH=/usr/bin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
echo "PMUVIRT-STOCK-UP cpus=$(grep -c ^processor /proc/cpuinfo) $(cat /sys/bus/event_source/devices/cpu/caps/pmu_name 2>/dev/null)"
up() { echo "PMUVIRT-STOCK-UPTIME $(cut -d' ' -f1 /proc/uptime) $*"; }
# Each test alone, so that one that hangs or kills perf costs only itself.
# perf_test_limit: seconds (guest time: one instruction is one nanosecond).
. /stock/stock.conf
cd /tmp
up "perf test"
echo "PERF-TEST-BEGIN"
for t in $(cat /stock/perf-tests.txt); do
	# into a file: perf colours its results on a terminal
	timeout "$perf_test_limit" perf test "$t" >/tmp/perf-test.out 2>&1
	rc=$?
	cat /tmp/perf-test.out
	# a failure's story, for docs/xen.md
	if grep -q "FAILED!" /tmp/perf-test.out; then
		timeout "$perf_test_limit" perf test -v "$t" 2>&1 | tail -n 40 | sed 's/^/PERF-TEST-VERBOSE: /'
	fi
	echo "PERF-TEST-RAN $t $rc"
done
echo "PERF-TEST-END"
up "perf test done"
if grep -q pmuvirt_stock_hvm /proc/cmdline && [ -d /papi ]; then
	# Debian's kernel defaults to 3, with which PAPI disables its
	# perf_event component; 2 is the kernel's own default (docs/papi.md)
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	export LD_LIBRARY_PATH=/papi/lib:/papi/share/papi/components/sde/tests/lib
	for cmd in papi_component_avail "papi_command_line PAPI_TOT_INS PAPI_TOT_CYC"; do
		echo "PAPI-OUTPUT-BEGIN: $cmd"
		/papi/bin/$cmd 2>&1
		echo "PAPI-OUTPUT-END: $cmd"
	done
	cd /papi/share/papi
	cat /stock/papi-excluded.txt >>run_tests_exclude.txt
	up "run_tests.sh"
	echo "PAPI-RUN-TESTS-BEGIN"
	if [ -s /stock/papi-tests.txt ]; then
		# the listed tests alone, as run_tests.sh runs them (quiet,
		# under its limit, ./ctests on the path), in its format
		export TESTS_QUIET=TESTS_QUIET
		for t in $(cat /stock/papi-tests.txt); do
			printf 'Running %s: ' "$t"
			PATH=/papi/harness:/papi/bin:./ctests:$PATH PAPI_TEST_LIMIT=$papi_test_limit \
				valgrind "./$t" TESTS_QUIET 2>&1
		done
	else
		PATH=/papi/harness:/papi/bin:$PATH PAPI_TEST_LIMIT=$papi_test_limit VALGRIND=yes \
			sh run_tests.sh 2>&1
	fi
	echo "PAPI-RUN-TESTS-END"
	up "run_tests.sh done"
	cd /
fi
dmesg | grep -E 'BUG|WARNING:|Oops|general protection|Call Trace' | sed 's/^/PMUVIRT-STOCK-KERNEL: /'
echo "PMUVIRT-STOCK-DONE"
poweroff -f
