#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the vm-compare guest: run bench/vm-compare.c and power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "vmc: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPU, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
dmesg | grep -E 'Performance Events|PMU' | sed 's/^\[[^]]*\] */vmc: dmesg: /'
insmod /pmuvirt.ko || echo "vmc: FAIL: insmod"
dmesg | grep 'pmuvirt:' | sed 's/^\[[^]]*\] */vmc: dmesg: /'
/vm-compare /pmuvirt.ko "${vmcreps:-5}"
poweroff -f
