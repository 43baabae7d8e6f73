#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the POWER test guest (test/vm-ppc): the PMU shared with perf,
# the module's checks on the real (QEMU-emulated) POWER PMU, one result
# line, power off.
. /vm-guest.sh

echo "vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(grep -m1 '^cpu' /proc/cpuinfo | tr -s ' \t' ' '), PMU $(cat /sys/bus/event_source/devices/cpu/caps/pmu_name 2>/dev/null || echo ?)"

# perf first: while it holds the PMU the module does not load
/vmtest perfopen ok || fail "perf cannot count before the module is loaded"
/vmtest perfhold > /perfhold.out &
holder=$!
i=0
while ! grep -q 'holds the PMU' /perfhold.out && [ $i -lt 300 ]; do usleep 10000; i=$((i + 1)); done
sed 's/^/vm: /' /perfhold.out
if insmod /pmuvirt.ko 2>/insmod.err; then
	fail "the module loaded while perf holds the PMU"
	rmmod pmuvirt
else
	echo "vm: insmod while perf holds the PMU: $(sed 's/.*: //' /insmod.err)"
	grep -q 'Device or resource busy' /insmod.err || fail "insmod: want EBUSY: $(cat /insmod.err)"
fi
kill $holder
wait $holder
insmod /pmuvirt.ko || fail "insmod"
dmesg | grep 'pmuvirt:' | sed 's/^/vm: dmesg: /'
[ -c /dev/pmuvirt ] || fail "no /dev/pmuvirt"
/vmtest perfopen busy || fail "perf counted while the module holds the PMU"

# vmppc_only=NAME,... on the kernel command line runs only those (debugging)
if [ -n "${vmppc_only:-}" ]; then
	for t in $(echo "$vmppc_only" | tr , ' '); do /vmtest $t || fail "vmtest $t"; done
	echo "PMUVIRT-VM-RESULT: $result (only $vmppc_only)"
	poweroff -f
fi
# callchain: sampling with call chains (the back chain), a leaf's two callers 3:1
for t in probe exact accuracy fork inherit exec malformed callchain; do
	/vmtest $t || fail "vmtest $t"
	[ "$(attached)" = 0 ] || fail "contexts left after $t: $(attached)"
done

# i-mode: the PMC alert (0xF00) through perf_irq, signals to the right thread
/vmtest imode || fail "vmtest imode"
p=/sys/module/pmuvirt/parameters
echo "vm: imode: PMIs deferred $(cat $p/pmis_deferred), without context $(cat $p/pmis_idle)"
[ "$(attached)" = 0 ] || fail "contexts left after imode: $(attached)"

echo "vm: pmuvirt-stat:"
# the command's main thread and the three threads it creates, each on its own
/pmuvirt-stat -e instructions,cycles,tsc -- /vmtest threads 3 5000000 > /stat.out 2>&1 || fail "pmuvirt-stat"
sed 's/^/vm:   /' /stat.out
# each spinner: its loop of 10,000,000 instructions, all counted, plus its
# share of the kernel (start, exit, ticks: under 1%); a count carried over
# from another spinner would add millions
awk '/spinner[0-9]-[0-9]+ .* instructions$/ { n++; v = $2; gsub(",", "", v);
	d = v - 10000000; printf "vm: pmuvirt-stat: %s instructions %s (loop + %d)\n", $1, v, d;
	if (d < 0 || d > 100000) bad++ }
	END { exit !(n == 3 && !bad) }' /stat.out || fail "pmuvirt-stat: per-thread counts of the command's threads"

# unload with attached threads: refused while they live, fine after
check_unload
/vmtest perfopen ok || fail "perf cannot count after the module gave the PMU back"
insmod /pmuvirt.ko || fail "reload"
/vmtest probe >/dev/null || fail "probe after reload"
rmmod pmuvirt || fail "second rmmod"

if dmesg | grep -v 'WARNING: nvram corruption detected' | grep -E 'BUG|WARNING:|Oops|Call Trace' ; then fail "kernel warnings"; fi
echo "PMUVIRT-VM-RESULT: $result"
poweroff -f
