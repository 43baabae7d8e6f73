#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the PAPI test guest: load pmuvirt.ko on its emulated PMU, show
# PAPI's view of it, run PAPI's run_tests.sh and power off.  The host
# (test/papi/run.sh) judges the output.
/bin/busybox --install -s /bin
export PATH=/papi/harness:/papi/bin:/bin
export LD_LIBRARY_PATH=/papi/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
echo "vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
if insmod /pmuvirt.ko emulate_pmu=1; then
	dmesg | grep 'pmuvirt: emulate_pmu' | tail -1 | sed 's/^/vm: dmesg: /'
	for cmd in "papi_component_avail" "papi_avail" "papi_native_avail" \
		   "papi_command_line PAPI_TOT_INS PAPI_TOT_CYC"; do
		echo "PAPI-OUTPUT-BEGIN: $cmd"
		$cmd 2>&1
		echo "PAPI-OUTPUT-END: $cmd"
	done
	cd /papi/share/papi
	# the tests excluded for their run time (docs/papi.md), after PAPI's own
	cat /papi-excluded.txt >>run_tests_exclude.txt
	echo "PAPI-RUN-TESTS-BEGIN"
	VALGRIND=yes PAPI_TEST_LIMIT=$(cat /papi-limit.txt) sh run_tests.sh 2>&1
	echo "PAPI-RUN-TESTS-END"
	cd /
	echo "vm: contexts left attached: $(cat /sys/module/pmuvirt/parameters/attached)"
	rmmod pmuvirt && echo "vm: rmmod ok"
else
	echo "vm: insmod failed"
fi
dmesg | grep -E 'BUG|WARNING:|Oops|general protection|Call Trace' | sed 's/^/vm: kernel: /'
echo "PAPI-VM-DONE"
poweroff -f
