#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the PAPI test guest: load pmuvirt.ko, show PAPI's view of it,
# run PAPI's run_tests.sh (or only the tests listed in /papi-tests.txt)
# and power off.  The host (test/papi/run.sh)
# judges the output.  On bare QEMU the module runs on its own emulated PMU
# (emulate_pmu=1); with "pmuvirt_papi_xen" on the kernel command line the
# guest is Xen's dom0 and the module stacks on Xen's per-VCPU counters.
/bin/busybox --install -s /bin
export PATH=/papi/harness:/papi/bin:/bin
export LD_LIBRARY_PATH=/papi/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
up() { echo "vm: uptime $(cut -d' ' -f1 /proc/uptime) s: $*"; }
echo "vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
modargs=emulate_pmu=1 excluded=/papi-excluded.txt
grep -q pmuvirt_papi_xen /proc/cmdline && modargs='' excluded=/papi-excluded-xen.txt
# shellcheck disable=SC2086
if insmod /pmuvirt.ko $modargs; then
	dmesg | grep 'pmuvirt: emulate_pmu\|pmuvirt: backend' | tail -1 | sed 's/^[^]]*\] /vm: dmesg: /'
	for cmd in "papi_component_avail" "papi_avail" "papi_native_avail" \
		   "papi_command_line PAPI_TOT_INS PAPI_TOT_CYC"; do
		echo "PAPI-OUTPUT-BEGIN: $cmd"
		$cmd 2>&1
		echo "PAPI-OUTPUT-END: $cmd"
	done
	cd /papi/share/papi
	# the tests excluded for their run time (docs/papi.md), after PAPI's own
	cat $excluded >>run_tests_exclude.txt
	up "run_tests.sh"
	echo "PAPI-RUN-TESTS-BEGIN"
	if [ -s /papi-tests.txt ]; then
		# the selected tests alone, each printing its own output (no
		# TESTS_QUIET), under the same limit, in run_tests.sh's format
		for t in $(cat /papi-tests.txt); do
			printf 'Running %s: ' "$t"
			PAPI_TEST_LIMIT=$(cat /papi-limit.txt) valgrind "./$t" 2>&1
		done
	else
		VALGRIND=yes PAPI_TEST_LIMIT=$(cat /papi-limit.txt) sh run_tests.sh 2>&1
	fi
	echo "PAPI-RUN-TESTS-END"
	up "run_tests.sh done"
	cd /
	echo "vm: contexts left attached: $(cat /sys/module/pmuvirt/parameters/attached)"
	rmmod pmuvirt && echo "vm: rmmod ok"
else
	echo "vm: insmod failed"
fi
dmesg | grep -E 'BUG|WARNING:|Oops|general protection|Call Trace' | sed 's/^/vm: kernel: /'
echo "PAPI-VM-DONE"
poweroff -f
