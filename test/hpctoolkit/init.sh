#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the HPCToolkit test guest (test/hpctoolkit/run.sh): load
# pmuvirt.ko, run hpc_split under HPCToolkit's hpcrun sampling
# PAPI_TOT_CYC through PAPI's pmuvirt component, print the measurement
# directory (a gzip'd tar in base64, with its MD5) and power off.  The
# host runs hpcstruct and hpcprof on it.  /hpc-args.txt holds
# "HPCRUN PROGRAM N ROUNDS PERIOD", paths as on the host.  On bare QEMU the
# module runs on its own emulated PMU (emulate_pmu=1); with
# "pmuvirt_hpc_xen" on the kernel command line the guest is Xen's dom0
# and the module stacks on Xen's per-VCPU counters.
/bin/busybox --install -s /bin
export PATH=/bin
export LD_LIBRARY_PATH=/papi/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
echo "vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
read -r hpcrun prog n rounds period </hpc-args.txt
modargs=emulate_pmu=1
grep -q pmuvirt_hpc_xen /proc/cmdline && modargs=''
# shellcheck disable=SC2086
if insmod /pmuvirt.ko $modargs; then
	dmesg | grep 'pmuvirt: emulate_pmu\|pmuvirt: backend' | tail -1 | sed 's/^[^]]*\] /vm: dmesg: /'
	"$hpcrun" -e "PAPI_TOT_CYC@$period" -o /tmp/meas "$prog" "$n" "$rounds"
	echo "vm: hpcrun exit $?"
	for f in /tmp/meas/*.log; do
		[ -f "$f" ] && sed 's/^/vm: hpcrun log: /' "$f"
	done
	tar -C /tmp -czf /tmp/meas.tgz meas
	echo "HPC-MEAS-BEGIN: $(md5sum </tmp/meas.tgz | cut -d' ' -f1)"
	base64 /tmp/meas.tgz
	echo "HPC-MEAS-END"
	echo "vm: contexts left attached: $(cat /sys/module/pmuvirt/parameters/attached)"
	rmmod pmuvirt && echo "vm: rmmod ok"
else
	echo "vm: insmod failed"
fi
dmesg | grep -E 'BUG|WARNING:|Oops|general protection|Call Trace' | sed 's/^/vm: kernel: /'
echo "HPC-VM-DONE"
poweroff -f
