#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the pmuvirt test guest: load the module, run the checks, print
# one result line and power off.
. /vm-guest.sh

echo "vm: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
insmod /pmuvirt.ko || fail "insmod"
dmesg | grep 'pmuvirt:' | sed 's/^/vm: dmesg: /'
[ -c /dev/pmuvirt ] || fail "no /dev/pmuvirt"

# vmmode (kernel command line): icount = one CPU, -icount shift=0, exact
# instruction counts; smp = two CPUs without -icount, for migration.
mode=${vmmode:-icount}
echo "vm: mode $mode"
if [ "$mode" = icount ]; then
	tests="probe accuracy fork inherit sum exec malformed reap"
	how=
else
	tests="probe accuracy migrate fork inherit sum reap"
	how=schedstat
fi
for t in $tests; do
	/vmtest $t $how || fail "vmtest $t"
	[ "$(attached)" = 0 ] || fail "contexts left after $t: $(attached)"
done
dmesg | grep -q 'control refused (counter 0): no counter of this PMU can count this event' ||
	fail "no reason logged for the refused PMC request"
dmesg | grep 'pmuvirt:' | grep -E 'refused|argument size|ABI version|reserved' | head -4 | sed 's/^/vm: dmesg: /'

if [ "$mode" = icount ]; then
echo "vm: pmuvirt-stat:"
# the command's main thread and the three threads it creates, each on its own
/pmuvirt-stat -e instructions,cycles,tsc -- /vmtest threads 3 5000000 > /stat.out 2>&1 || fail "pmuvirt-stat"
sed 's/^/vm:   /' /stat.out
grep -q 'not supported.*instructions' /stat.out || fail "pmuvirt-stat: instructions"
grep -q 'vmtest-[0-9]* .*[0-9] *tsc' /stat.out || fail "pmuvirt-stat: tsc of the main thread"
# each spinner ran 10,000,000 instructions (ticks) of its own: within 2%
awk '/spinner[0-9]-[0-9]+ .* tsc$/ { n++; v = $2; gsub(",", "", v);
	e = (v - 10000000) / 10000000; if (e < 0) e = -e;
	printf "vm: pmuvirt-stat: %s tsc %s (error %.3f%%)\n", $1, v, 100 * e;
	if (e > 0.02) bad++ }
	END { exit !(n == 3 && !bad) }' /stat.out || fail "pmuvirt-stat: per-thread counts of the command's threads"
fi

# the emulated PMU (a test instrument: counters that count TSC ticks, PMIs
# from a timer): PMC counting, i-mode overflow signals and RESUME for real
if [ "$mode" = icount ]; then
	rmmod pmuvirt || fail "rmmod before emulate_pmu=1"
	insmod /pmuvirt.ko emulate_pmu=1 || fail "insmod emulate_pmu=1"
	dmesg | grep 'pmuvirt: emulate_pmu' | tail -1 | sed 's/^/vm: dmesg: /'
	/vmtest imode || fail "vmtest imode"
	/vmtest isolation || fail "vmtest isolation"
	# IP sampling: two threads on this CPU, each a known 3:1 split between two functions
	/vmtest sample || fail "vmtest sample"
	echo "vm: emulated PMIs: $(cat /sys/module/pmuvirt/parameters/emulated_pmis)"
	[ "$(attached)" = 0 ] || fail "contexts left after imode: $(attached)"
	# PMIs during reads and switches (deferred) and with no context: each
	# path must unmask LVTPC, or every later PMI of the CPU is lost
	/vmtest pmistorm || fail "vmtest pmistorm"
	p=/sys/module/pmuvirt/parameters
	echo "vm: pmistorm: emulated PMIs $(cat $p/emulated_pmis), at a register access $(cat $p/emulated_pmis_at_access), deferred $(cat $p/pmis_deferred), without context $(cat $p/pmis_idle), lost to a masked LVTPC $(cat $p/emulated_pmis_lost)"
	[ "$(cat $p/pmis_deferred)" -gt 0 ] || fail "pmistorm: no PMI arrived during a switch or read"
	[ "$(cat $p/emulated_pmis_lost)" = 0 ] || fail "pmistorm: PMIs lost to a masked LVTPC"
	[ "$(attached)" = 0 ] || fail "contexts left after pmistorm: $(attached)"
	# security policy: perf_event_paranoid and CAP_PERFMON, min_period, the
	# overflow signal's permission, exec of a setuid program, the PMI rate limit
	echo "vm: perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid), /dev/pmuvirt mode $(stat -c %a /dev/pmuvirt)"
	for t in policy evpolicy suid sigperm; do
		/vmtest $t || fail "vmtest $t"
		[ "$(attached)" = 0 ] || fail "contexts left after $t: $(attached)"
	done
	dmesg | grep -q 'attach: counter 1: event not permitted by user_event_policy' ||
		fail "no kernel message naming the counter the event policy refused"
	dmesg | grep -q 'starts without counters: counter 0: event not permitted by user_event_policy' ||
		fail "no kernel message for the new task the event policy refused"
	echo 1000 > /sys/module/pmuvirt/parameters/max_pmi_rate
	/vmtest throttle || fail "vmtest throttle"
	echo 100000 > /sys/module/pmuvirt/parameters/max_pmi_rate
	[ "$(attached)" = 0 ] || fail "contexts left after throttle: $(attached)"
	dmesg | grep 'pmuvirt:' | grep -E 'need CAP_PERFMON|below min_period|cannot be the overflow signal|not sent|max_pmi_rate|user_event_policy' |
		sort -u -k2 | head -12 | sed 's/^/vm: dmesg: /'
	dmesg | grep -q 'over max_pmi_rate (1000 per second)' || fail "no kernel message for the throttled PMIs"
	/pmuvirt-stat -e instructions,cycles,tsc -- /vmtest threads 2 5000000 > /stat.out 2>&1 || fail "pmuvirt-stat (emulated PMU)"
	sed 's/^/vm:   /' /stat.out
	awk '/spinner[0-9]-[0-9]+ .* instructions$/ { n++; v = $2; gsub(",", "", v);
		e = (v - 10000000) / 10000000; if (e < 0) e = -e; if (e > 0.02) bad++ }
		END { exit !(n == 2 && !bad) }' /stat.out || fail "pmuvirt-stat: instructions of the threads (emulated PMU)"
	# profiles as vmtest sample checks them, through the tools:
	# pmuvirt-record drains both threads' rings, pmuvirt-report names the
	# functions (libdw) per thread (test/vm-profile.sh).  Last, so that the
	# checks before run at the same virtual time as without it.
	. /vm-profile.sh
	vm_profile 20000 10
	vm_chain 20000 10
	[ "$(attached)" = 0 ] || fail "contexts left after the profile: $(attached)"
	rmmod pmuvirt || fail "rmmod after emulate_pmu=1"
	# the event policy as a load parameter: a malformed one fails the load
	if insmod /pmuvirt.ko user_event_policy=allow,tsc 2>/dev/null; then
		fail "insmod with a malformed user_event_policy"; rmmod pmuvirt
	fi
	insmod /pmuvirt.ko 'user_event_policy="deny  r00c0/00ff,branches"' ||
		fail "insmod after emulate_pmu=1"
	pol=$(cat /sys/module/pmuvirt/parameters/user_event_policy)
	echo "vm: user_event_policy at load: \"$pol\""
	[ "$pol" = "deny branches,rc0/ff" ] || fail "user_event_policy at load reads \"$pol\""
	echo > /sys/module/pmuvirt/parameters/user_event_policy || fail "clearing user_event_policy"
	[ -z "$(cat /sys/module/pmuvirt/parameters/user_event_policy)" ] || fail "user_event_policy not cleared"
fi

# The emulated PMU at host speed (two CPUs): PMIs that QEMU delivers a
# period late, then CPU 1 goes offline under an attached thread and comes
# back with its PMU reset and LVTPC masked
if [ "$mode" = smp ]; then
	rmmod pmuvirt || fail "rmmod before emulate_pmu=1"
	insmod /pmuvirt.ko emulate_pmu=1 || fail "insmod emulate_pmu=1"
	p=/sys/module/pmuvirt/parameters
	/vmtest latepmi || fail "vmtest latepmi"
	echo "vm: latepmi: emulated PMIs $(cat $p/emulated_pmis), at a register access $(cat $p/emulated_pmis_at_access), deferred $(cat $p/pmis_deferred), lost to a masked LVTPC $(cat $p/emulated_pmis_lost)"
	[ "$(cat $p/emulated_pmis_lost)" = 0 ] || fail "latepmi: PMIs lost to a masked LVTPC"
	[ "$(attached)" = 0 ] || fail "contexts left after latepmi: $(attached)"
	/vmtest hotplug || fail "vmtest hotplug"
	echo "vm: hotplug: emulated PMIs $(cat $p/emulated_pmis), lost to a masked LVTPC $(cat $p/emulated_pmis_lost)"
	[ "$(cat $p/emulated_pmis_lost)" = 0 ] || fail "hotplug: PMIs lost to a masked LVTPC"
	[ "$(attached)" = 0 ] || fail "contexts left after hotplug: $(attached)"
	rmmod pmuvirt || fail "rmmod after emulate_pmu=1"
	insmod /pmuvirt.ko || fail "insmod after emulate_pmu=1"
fi

# unload with attached threads: refused while they live, fine after
check_unload
insmod /pmuvirt.ko || fail "reload"
/vmtest probe >/dev/null || fail "probe after reload"
rmmod pmuvirt || fail "second rmmod"

if dmesg | grep -E 'BUG|WARNING:|Oops|general protection|Call Trace' ; then fail "kernel warnings"; fi
echo "PMUVIRT-VM-RESULT: $result"
poweroff -f
