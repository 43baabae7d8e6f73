# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The domu boot's profiled command (dom0-init.sh): run both domUs, dom0
# spinning meanwhile.
log=/var/log/xen/console/guest-pmuvirt
# both_say LINE: wait (at most 300 s) until both domUs' consoles hold LINE.
both_say() {
	_i=0
	while [ $_i -lt 300 ] && ! { grep -q "$1" $log-a.log &&
		grep -q "$1" $log-b.log; } 2>/dev/null; do
		sleep 1
		_i=$((_i + 1))
	done
}
# both_go KEY TAG: each domU's data/KEY gets a start time on Xen's wall
# clock, 3 s ahead, so domUs that read their keys at different moments go
# on at once.
both_go() {
	_go=$(( $(date +%s) + 3 ))
	for _d in a b; do
		/xs_rendezvous write /local/domain/$(/usr/bin/xl domid pmuvirt-$_d)/data/$1 $_go &&
			echo "PMUVIRT-DOM0-$2 $_d $_go"
	done
}
# stuck_report D: what to know of a migration of pmuvirt-D that did not
# end: the guest's last console lines (a panic shows there), the domains,
# and Xen's registers of every VCPU ('d') with the rest of its log.
stuck_report() {
	for _f in $log-$1.log $log-$1--incoming.log; do
		[ -e "$_f" ] && tail -n 80 "$_f" | sed "s/^/stuck: $1: /"
	done
	/usr/bin/xl list | sed 's/^/stuck: /'
	/usr/bin/xl debug-keys d
	/usr/bin/xl dmesg | tail -n 200 | sed 's/^/stuck: /'
}
# Both domUs ran a session of their own before this one (the PVH domU's
# split, the PV domU's active session) and wait for the key.
for _d in a b; do
	/xs_rendezvous write /local/domain/$(/usr/bin/xl domid pmuvirt-$_d)/data/pmuvirt-profiled 1
done
sh -c 'while :; do :; done' &
spin=$!
# First the two guests' own perf stat, at once (domu-init.sh).
both_say PMUVIRT-STOCK-PERF-WAITING
both_go pmuvirt-perf-go PERF-GO
# The PVH domU boots in a fraction of the PV one's time: both wait before
# their loops until dom0 writes their go key, so the loops run at once.
both_say PMUVIRT-XEN-GUEST-WAITING
both_go pmuvirt-go GO
# In the middle of its last loops each domU is saved and restored, then,
# once it says it is back, migrated live to this same host (the receiver
# is "xl migrate-receive" run here, not over ssh): one xl at a time.
step_a=save step_b=save
i=0
while [ $i -lt 600 ] && /usr/bin/xl list | grep -q pmuvirt-; do
	for d in a b; do
		eval step=\$step_$d
		case $step in
		save)
			grep -q PMUVIRT-SAVE-READY $log-$d.log 2>/dev/null || continue
			# xl is slow enough without the spinner
			[ -n "$spin" ] && kill $spin && spin=
			s0=$(cut -d. -f1 /proc/uptime)
			/usr/bin/xl save pmuvirt-$d /var/lib/xen/$d.save && echo "PMUVIRT-DOM0-SAVED $d"
			s1=$(cut -d. -f1 /proc/uptime)
			/usr/bin/xl restore /var/lib/xen/$d.save && echo "PMUVIRT-DOM0-RESTORED $d"
			echo "PMUVIRT-DOM0-SAVE-SECONDS $d save $((s1 - s0)) restore $(( $(cut -d. -f1 /proc/uptime) - s1 )) image $(du -m /var/lib/xen/$d.save | cut -f1) MiB"
			rm -f /var/lib/xen/$d.save
			step=migrate
			;;
		migrate)
			grep -q "PMUVIRT-SAVE-BACK 1" $log-$d.log 2>/dev/null || continue
			/usr/bin/xl info | sed -n "s/^free_memory *: */PMUVIRT-DOM0-FREE-MIB $d /p"
			s0=$(cut -d. -f1 /proc/uptime)
			/usr/bin/xl migrate -s "" pmuvirt-$d "/usr/bin/xl migrate-receive" &
			mig=$!
			# 4 to 7 s as a rule: a minute means it will not end
			_w=0
			while kill -0 $mig 2>/dev/null && [ $_w -lt 60 ]; do
				sleep 1
				_w=$((_w + 1))
			done
			if kill -0 $mig 2>/dev/null; then
				echo "PMUVIRT-DOM0-MIGRATE-STUCK $d"
				stuck_report $d
				kill $mig
			fi
			wait $mig && echo "PMUVIRT-DOM0-MIGRATED $d"
			echo "PMUVIRT-DOM0-MIGRATE-SECONDS $d $(( $(cut -d. -f1 /proc/uptime) - s0 ))"
			step=done
			;;
		esac
		eval step_$d=\$step
	done
	sleep 1
	i=$((i + 1))
done
# the recorder returns this script's status
if [ -n "$spin" ]; then kill $spin; fi
