#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of the domUs of the domu, smp and hvm boots (run.sh packs it into
# dom0's tree); each reports on its console.  /vm-xen.conf holds
# guest_iterations.
. /vm-xen.conf
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "PMUVIRT-DOMU-UP cpus=$(grep -c ^processor /proc/cpuinfo)"
# The off boots' domU: Xen gives it no PMU (pmuvirt-vpmu=0, or its
# domain's policy); Linux must find none.
if grep -q pmuvirt_nopmu /proc/cmdline; then
	/stock_perf_test no-pmu
	echo "PMUVIRT-DOMU-NO-PMU-EXIT=$?"
	dmesg | grep "Performance Events" | sed 's/^\[[^]]*\] //'
	echo "PMUVIRT-DOMU-DONE"
	poweroff -f
fi
# Its own VCPUs only: dom0's and the other domU's are refused by Xen.
# (Linux's privcmd passes a domU's hypercalls on only when unrestricted.)
insmod /xen-privcmd.ko unrestricted=1
# domu: beside the other domU, saved, restored and migrated; hvm: alone,
# a save of it failed, then saved and restored; smp: on two
# PCPUs, where the TSC is no exact truth for a thread's work (shared).
run=domu shared=
grep -q pmuvirt_hvm /proc/cmdline && run=hvm
grep -q pmuvirt_smp /proc/cmdline && run=smp shared=shared
# An HVM or PVH domU that dom0 profiles alone first (pmuvirt_split): a
# kernel-bound and a user-bound loop, 1:3 by the TSC, whose samples must
# carry the guest's own IPs.  The domu boot's domU then waits until dom0's
# main session runs (its access test checks that session's refusals).
if grep -q pmuvirt_split /proc/cmdline; then
	/xen_prof_test crng
	# An HVM guest's cross-CPU calls (smp_call_function_many_cond) spin on
	# a sibling VCPU that waits for the one PCPU: its VCPU 1 sits the split out.
	[ $run = hvm ] && echo 0 >/sys/devices/system/cpu/cpu1/online
	echo "PMUVIRT-SPLIT-WAITING"
	/xs_rendezvous wait data/pmuvirt-split-go 300 || echo "PMUVIRT-SPLIT-NO-GO"
	/xen_prof_test split $split_ticks $split_rounds
	echo "PMUVIRT-SPLIT-EXIT=$?"
	# nothing else of this domain's in dom0's session
	/xs_rendezvous wait data/pmuvirt-split-done 300
	[ $run = hvm ] && echo 1 >/sys/devices/system/cpu/cpu1/online
fi
# The domu boot's domUs, each active in turn in a session of dom0's
# (pmuvirt_active), which records call chains: each drains its own rings
# (pmuvirt-xenprof active; the PVH domU's placed by pmuvirt.ko) over a
# split; its report must hold its own samples only, none with an address
# of Xen's, split 1:3.  The PV domU then runs chain_probe.ko's kernel
# loop on its VCPU 1 (the split's samples are VCPU 0's), whose leaf's
# folded stacks must split 3:1 between its two callers.  Then both wait
# until dom0's main session runs.
if grep -q pmuvirt_active /proc/cmdline; then
	pv=; [ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PV ] && pv=1
	insmod /xen-evtchn.ko
	[ -n "$pv" ] || insmod /pmuvirt.ko
	[ -z "$pv" ] || insmod /chain_probe.ko || echo "PMUVIRT-ACTIVE-CHAIN-PROBE-FAILED"
	mkdir -p /prof && mount -t tmpfs -o size=48m tmpfs /prof
	echo 0 >/proc/sys/kernel/kptr_restrict
	grep -v '\[' /proc/kallsyms >/prof/kallsyms
	# with the modules' symbols (chain_probe.ko's)
	cat /proc/kallsyms >/prof/kallsyms-all
	/xen_prof_test crng
	echo "PMUVIRT-ACTIVE-WAITING"
	/xs_rendezvous wait data/pmuvirt-active-go 300 || echo "PMUVIRT-ACTIVE-NO-GO"
	# the tool on VCPU 1, the split on VCPU 0: the drains' kernel work
	# would count in VCPU 0's kernel share
	taskset -c 1 /pmuvirt-xenprof active ${pv:+-g} --wait 120 -o /prof/active.data -- sh -c \
		"/xen_prof_test split $split_ticks $split_rounds${pv:+ && /xen_prof_test chainrun 1 $chain_iters}" \
		>/prof/active.out 2>/prof/active.err
	_rec=$?
	# the reports and the chain check before the marker that gives the
	# other domU its turn: they must not take the time its split measures
	self=$(sed -n 's/.*active: domain \([0-9]*\),.*/\1/p' /prof/active.err)
	/pmuvirt-report -i /prof/active.data --map ${self:-0}=/prof/kallsyms \
		--exe ${self:-0}=/xen_prof_test --vcpu --top 100000 >/prof/active.txt
	_rep=$?
	if [ -n "$pv" ]; then
		_maps="--map ${self:-0}=/prof/kallsyms-all --exe ${self:-0}=/xen_prof_test"
		/pmuvirt-report -i /prof/active.data $_maps --folded >/prof/chain.folded &&
			/pmuvirt-report -i /prof/active.data $_maps --dump >/prof/chain.dump
		_dump=$?
		grep "chain_probe_leaf" /prof/chain.folded | sed 's/^/chain: /' >/prof/chain.check
		/xen_prof_test chaincheck /prof/chain.folded /prof/chain.dump d${self:-0} \
			>>/prof/chain.check
	else
		/pmuvirt-report -i /prof/active.data --dump >/prof/chain.dump
		_dump=$?
	fi
	echo "PMUVIRT-ACTIVE-RECORD-EXIT=$_rec"
	cat /prof/active.out /prof/active.err
	echo "PMUVIRT-ACTIVE-REPORT-EXIT=$_rep"
	sed -n '1,25s/^/active: /p' /prof/active.txt
	_line=$(grep -a "PMUVIRT-XEN-SPLIT kernel" /prof/active.out | tail -n 1)
	_k=$(echo "$_line" | sed -n 's/.*kernel \([0-9]*\) user.*/\1/p')
	_u=$(echo "$_line" | sed -n 's/.* user \([0-9]*\) ratio.*/\1/p')
	_type=pvh; [ -z "$pv" ] || _type=pv
	/xen_prof_test activecheck /prof/active.txt d${self:-0} "${_k:-0}" "${_u:-0}" $_type
	if [ -n "$pv" ]; then
		echo "PMUVIRT-ACTIVE-FOLDED-EXIT=$_dump"
		cat /prof/chain.check
	else
		# a PVH guest's records hold no frames: Xen reads no PVH guest's memory
		_c=$([ $_dump = 0 ] && grep -c " chain " /prof/chain.dump)
		echo "PMUVIRT-ACTIVE-FRAMES d${self:-0}: ${_c:-no dump} records with frames"
	fi
	[ -n "$pv" ] || /xen_prof_test devperm
	umount /prof
	# the device closed: its rings out of this domain's physical map, the module free to go
	[ -n "$pv" ] || rmmod pmuvirt || echo "PMUVIRT-ACTIVE-RMMOD-FAILED"
	echo "PMUVIRT-ACTIVE-DONE"
fi
grep -q "pmuvirt_split\|pmuvirt_active" /proc/cmdline && [ $run = domu ] &&
	/xs_rendezvous wait data/pmuvirt-profiled 300
if [ $run = domu ]; then
	/xen_access_test domu $(sed -n 's/.*pmuvirt_peer=\([0-9]*\).*/\1/p' /proc/cmdline) profiled
	echo "PMUVIRT-DOMU-ACCESS-EXIT=$?"
	# The loops of both domUs start together: dom0 writes the key once both wait.
	export PMUVIRT_XEN_GUEST_GO="/xs_rendezvous wait data/pmuvirt-go 300"
fi
# The guest kernel's own perf on the PMU Xen emulates, before pmuvirt.ko:
# through perf_event_open(), then Debian's perf stat (a PV domU through
# Xen's XENPMU_* ABI, perf stat only).  dom0 gave the hvm boot's domain a
# policy that denies branches.  (stock_perf_test perf-across runs last.)
if [ $run = hvm ]; then
	/stock_perf_test emulated branches-denied
	echo "PMUVIRT-STOCK-PERF-EXIT=$?"
	/stock_perf_test perf-stat emulated branches-denied
	echo "PMUVIRT-STOCK-PERF-STAT-EXIT=$?"
	/stock_perf_test perf-record
	echo "PMUVIRT-STOCK-PERF-RECORD-EXIT=$?"
elif [ $run = domu ]; then
	# Both domUs' perf stat at once on the one PCPU, beside dom0's session:
	# dom0 writes the key once both wait.  Each count must be its own work.
	echo "PMUVIRT-STOCK-PERF-WAITING"
	/xs_rendezvous wait data/pmuvirt-perf-go 300 || echo "PMUVIRT-STOCK-PERF-NO-GO"
	/stock_perf_test perf-stat emulated beside-session
	echo "PMUVIRT-STOCK-PERF-STAT-EXIT=$?"
fi
insmod /pmuvirt.ko && echo "PMUVIRT-DOMU-LOADED"
dmesg | grep "pmuvirt:" | sed 's/^\[[^]]*\] //'
# pmuvirt-record in the domu boot's PV and PVH domUs and in the hvm boot's
# HVM one, their counters' PMI the VIRQ: vm-linux's profile check
# (test/vm-profile.sh), each thread's 3:1 split within 3%.
if [ $run != smp ]; then
	# its files in a tmpfs of their own: the root's tmpfs is nearly full
	mkdir -p /prof && mount -t tmpfs -o size=48m tmpfs /prof
	(
		fail() {
			echo "PMUVIRT-DOMU-PROFILE-FAIL: $* (status $?)"
			sed 's/^/vm: stderr: /' /prof/prof.rerr 2>/dev/null
			echo "vm: kallsyms: $(grep -c . /prof/kallsyms 2>/dev/null) lines"
			sed -n 's/^\(MemFree\|Shmem\):/vm: &/p' /proc/meminfo
			dmesg | tail -n 8 | sed 's/^/vm: dmesg: /'
			exit 1
		}
		vm_dir=/prof
		. /vm-profile.sh
		vm_profile 50021 10
	)
	echo "PMUVIRT-DOMU-PROFILE-EXIT=$?"
	umount /prof
fi
/pmuvirt_xen_guest $guest_iterations emulated $shared
echo "PMUVIRT-DOMU-GUEST-EXIT=$?"
# i-mode counters on Xen's emulated PMU: overflow -> PMI -> VIRQ -> signal.
/vmtest imode ${shared:-0.04}
echo "PMUVIRT-DOMU-IMODE-EXIT=$?"
# PMUVIRT_XEN_IMODE_REPEAT (run.sh): the same check again and again, with
# the interrupts each run took, for failures too rare to show in one run.
repeat=$(sed -n 's/.*pmuvirt_imode_repeat=\([0-9]*\).*/\1/p' /proc/cmdline)
k=0
while [ "$k" -lt "${repeat:-0}" ]; do
	k=$((k + 1))
	grep -E "virq|IWI|HYP" /proc/interrupts | tr -s ' ' | sed "s/^/PMUVIRT-DOMU-IRQS-BEFORE $k /"
	/vmtest imode ${shared:-0.04}
	echo "PMUVIRT-DOMU-IMODE-REPEAT-EXIT=$? $k"
	grep -E "virq|IWI|HYP" /proc/interrupts | tr -s ' ' | sed "s/^/PMUVIRT-DOMU-IRQS-AFTER $k /"
done
if [ $run = hvm ]; then
	# dom0 makes a save of this domain fail (Xen's pmuvirt-fail-save): the
	# suspend is cancelled, the domain carries on and maps its records again.
	resumes=/sys/module/pmuvirt/parameters/xen_resumes
	r0=$(cat $resumes)
	echo "PMUVIRT-DOMU-FAIL-SAVE-WAITING"
	/xs_rendezvous wait data/pmuvirt-failed 300
	r1=$(cat $resumes)
	echo "PMUVIRT-DOMU-FAIL-SAVE-RESUMES $r0 then $r1"
	[ "$r1" = "$((r0 + 1))" ] && echo "PMUVIRT-DOMU-FAIL-SAVE-CANCELLED"
fi
if [ $run != smp ]; then
	# In the middle of these loops dom0 saves and restores the domain, then
	# migrates a PV or PVH one to its own host: two comebacks, or one.
	mode=; dmesg | grep -q "backend: Xen PVH\|backend: Xen HVM" && mode=guest-only
	/xen_save_guest $mode $([ $run = hvm ] && echo 1 || echo 2)
	echo "PMUVIRT-DOMU-SAVE-EXIT=$?"
fi
/vmtest reap
echo "PMUVIRT-DOMU-REAP-EXIT=$?"
echo "PMUVIRT-DOMU-HYPERCALLS $(cat /sys/module/pmuvirt/parameters/xen_hypercalls)"
rmmod pmuvirt && echo "PMUVIRT-DOMU-UNLOADED"
if [ $run = domu ]; then
	# dom0's profiling session still runs: this VCPU's rdpmc sees only its own counter
	insmod /rdpmc_probe.ko 2>/dev/null
	dmesg | grep PMUVIRT-RDPMC | sed 's/^\[[^]]*\] //'
fi
if [ $run = hvm ]; then
	# Debian's perf stat across dom0's xl save and xl restore of this
	# domain, the last of the boot: a XenStore key of the restored domain
	# tells that it came back.  The count must go on from where it was.
	(/xs_rendezvous wait data/pmuvirt-perf-restored 600 && : >/tmp/restored) &
	/stock_perf_test perf-across /tmp/restored
	echo "PMUVIRT-STOCK-PERF-ACROSS-EXIT=$?"
fi
echo "PMUVIRT-DOMU-KERNEL-WARNINGS=$(dmesg | grep -c 'pmuvirt: VCPU\|pmuvirt: cannot\|WARNING:\|BUG:')"
echo "PMUVIRT-DOMU-DONE"
poweroff -f
