# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The split session's command (dom0-init.sh): "sh /split-run.sh NAME LOG"
# tells domain NAME, waiting in xen_prof_test split (domu-init.sh), to go,
# and returns once LOG, its console, says that the split ended (the domain
# then waits for dom0's key pmuvirt-split-done).
d=$(/usr/bin/xl domid "$1") || exit 1
/xs_rendezvous write /local/domain/$d/data/pmuvirt-split-go 1 || exit 1
i=0
until grep -q PMUVIRT-SPLIT-EXIT "$2" 2>/dev/null; do
	[ $i -lt 600 ] || exit 1
	sleep 1
	i=$((i + 1))
done
