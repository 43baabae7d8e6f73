# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# The smp boot's run (dom0-init.sh): both domUs, all their VCPUs moved to
# the other PCPU (hard affinity, one xl call a domain) as fast as xl can
# while they run, and PCPU 1 offline for a moment in the middle.
/usr/bin/xl unpause pmuvirt-a
/usr/bin/xl unpause pmuvirt-b
i=0 pins=0
while [ $i -lt 10000 ] && /usr/bin/xl list | grep -q pmuvirt-; do
	for d in a b; do
		/usr/bin/xl vcpu-pin pmuvirt-$d all $((i % 2)) 2>/dev/null && pins=$((pins + 1))
	done
	if [ $i = 20 ]; then
		/usr/bin/xen-hptool cpu-offline 1 && echo "PMUVIRT-DOM0-SMP-OFFLINE"
		usleep 300000
		/usr/bin/xen-hptool cpu-online 1 && echo "PMUVIRT-DOM0-SMP-ONLINE"
	fi
	i=$((i + 1))
done
echo "PMUVIRT-DOM0-SMP-PINS $pins in $i rounds"
