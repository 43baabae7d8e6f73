#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the skid guests (bench/skid.sh): load pmuvirt.ko (on x86 with
# its emulated PMU), run bench/skid.c skidreps times, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "skid: kernel $(uname -r), $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPU"
if [ "$(uname -m)" = x86_64 ]; then
	insmod /pmuvirt.ko emulate_pmu=1 || echo "skid: FAIL: insmod"
else
	insmod /pmuvirt.ko || echo "skid: FAIL: insmod"
fi
dmesg | grep 'pmuvirt:' | sed 's/^\[[^]]*\] */skid: dmesg: /'
# x86: the PMI reads the TSC before the counter, then after it (bounds)
orders=tsc-first
[ "$(uname -m)" = x86_64 ] && orders="tsc-first tsc-last"
i=0
while [ $i -lt "${skidreps:-2}" ]; do
	for o in $orders; do
		/skid "${skidperiod:-20011}" "${skidsamples:-10000}" "$o"
	done
	i=$((i + 1))
done
p=/sys/module/pmuvirt/parameters
for f in pmis_deferred pmis_idle emulated_pmis emulated_pmis_at_access throttled; do
	[ -r $p/$f ] && echo "skid: $f $(cat $p/$f)"
done
echo "SKID-DONE"
poweroff -f
