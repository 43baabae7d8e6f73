# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The active session's command (dom0-init.sh): "sh /active-run.sh NAME..."
# tells each domain NAME in turn, waiting in domu-init.sh, to go, and
# returns once its console says that its own recording ended.
log=/var/log/xen/console/guest
for n in "$@"; do
	i=0
	until grep -q PMUVIRT-ACTIVE-WAITING $log-$n.log 2>/dev/null; do
		[ $i -lt 600 ] || exit 1
		sleep 1
		i=$((i + 1))
	done
	d=$(/usr/bin/xl domid "$n") || exit 1
	/xs_rendezvous write /local/domain/$d/data/pmuvirt-active-go 1 || exit 1
	until grep -q PMUVIRT-ACTIVE-RECORD-EXIT $log-$n.log 2>/dev/null; do
		[ $i -lt 1200 ] || exit 1
		sleep 1
		i=$((i + 1))
	done
done
