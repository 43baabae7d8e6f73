#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the TAU test guest (test/tau/run.sh): load pmuvirt.ko, run
# tau_split with TAU_METRICS=PAPI_TOT_INS:PAPI_TOT_CYC through PAPI's
# pmuvirt component, print TAU's profile files and power off.  The host
# runs TAU's pprof on them and judges the split.  On bare QEMU the module
# runs on its own emulated PMU (emulate_pmu=1); with "pmuvirt_tau_xen" on
# the kernel command line the guest is Xen's dom0 and the module stacks
# on Xen's per-VCPU counters.
/bin/busybox --install -s /bin
export PATH=/bin
export LD_LIBRARY_PATH=/papi/lib:/tau/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
echo "vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
modargs=emulate_pmu=1
grep -q pmuvirt_tau_xen /proc/cmdline && modargs=''
# shellcheck disable=SC2086
if insmod /pmuvirt.ko $modargs; then
	dmesg | grep 'pmuvirt: emulate_pmu\|pmuvirt: backend' | tail -1 | sed 's/^[^]]*\] /vm: dmesg: /'
	mkdir -p /tmp/tau && cd /tmp/tau
	TAU_METRICS=PAPI_TOT_INS:PAPI_TOT_CYC /tau_split $(cat /tau-args.txt)
	echo "vm: tau_split exit $?"
	for f in */profile.* profile.*; do
		[ -f "$f" ] || continue
		echo "TAU-PROFILE-BEGIN: $f"
		cat "$f"
		echo "TAU-PROFILE-END: $f"
	done
	cd /
	echo "vm: contexts left attached: $(cat /sys/module/pmuvirt/parameters/attached)"
	rmmod pmuvirt && echo "vm: rmmod ok"
else
	echo "vm: insmod failed"
fi
dmesg | grep -E 'BUG|WARNING:|Oops|general protection|Call Trace' | sed 's/^/vm: kernel: /'
echo "TAU-VM-DONE"
poweroff -f
