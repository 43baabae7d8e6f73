#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# /init of dom0 in every vm-xen boot (run.sh); the dom0 command line says
# which boot.  /vm-xen.conf holds run.sh's loop lengths and profiling
# periods.
. /vm-xen.conf
# wait_for FILE MARKER SECONDS: MARKER is in FILE, or false after SECONDS.
wait_for() {
	_i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		[ $_i -lt $3 ] || return 1
		sleep 1
		_i=$((_i + 1))
	done
}
# split_session NAME DOMID LOG: once the HVM or PVH domain waits in its
# split (domu-init.sh), a session that names it alone records it; its
# report must show the guest's kernel and user loops at its own IPs, 1:3
# as the guest's TSC measured them, and none as Xen's.
split_session() {
	if ! wait_for "$3" PMUVIRT-SPLIT-WAITING 600; then
		echo "PMUVIRT-SPLIT-NOT-WAITING $1"
		return 1
	fi
	# 32-byte records (IP and mode, domain): the session's chosen format
	/pmuvirt-xenprof record -d $2 -c $split_period --fields ip,mode -o /tmp/split-$2.data -- \
		sh /split-run.sh $1 "$3"
	echo "PMUVIRT-XEN-PROF-SPLIT-RECORD-EXIT=$?"
	/xs_rendezvous write /local/domain/$2/data/pmuvirt-split-done 1
	/pmuvirt-report -i /tmp/split-$2.data --xen-syms /xen-syms --map $2=/tmp/kallsyms \
		--exe $2=/xen_prof_test --vcpu --top 100000 >/tmp/split-$2.txt
	echo "PMUVIRT-XEN-PROF-SPLIT-REPORT-EXIT=$?"
	sed -n '1,25s/^/split: /p' /tmp/split-$2.txt
	_line=$(grep -a "PMUVIRT-XEN-SPLIT kernel" "$3" | tail -n 1)
	echo "split: domain $2: $_line"
	_k=$(echo "$_line" | sed -n 's/.*kernel \([0-9]*\) user.*/\1/p')
	_u=$(echo "$_line" | sed -n 's/.* user \([0-9]*\) ratio.*/\1/p')
	/xen_prof_test splitcheck /tmp/split-$2.txt d$2 "${_k:-0}" "${_u:-0}"
	/usr/bin/xl dmesg | grep "profiling stopped" | tail -n 1 | sed 's/^/split: /'
}
# active_session A B: once the PV domain A and the PVH domain B wait
# (domu-init.sh, pmuvirt_active), a session with call chains that names
# dom0 and both, active, while each in turn drains and checks its own
# records; dom0's file must hold no ring and no record of either.
active_session() {
	# both wait before the session starts: it holds nothing of their boots
	for _n in a b; do
		wait_for /var/log/xen/console/guest-pmuvirt-$_n.log PMUVIRT-ACTIVE-WAITING 600 ||
			echo "PMUVIRT-ACTIVE-NOT-WAITING $_n"
	done
	/pmuvirt-xenprof record -d 0 -a $1 -a $2 -c $split_period -g -o /tmp/active-dom0.data -- \
		sh /active-run.sh pmuvirt-a pmuvirt-b
	echo "PMUVIRT-XEN-PROF-ACTIVE-RECORD-EXIT=$?"
	/pmuvirt-report -i /tmp/active-dom0.data --top 100000 >/tmp/active-dom0.txt
	echo "PMUVIRT-XEN-PROF-ACTIVE-REPORT-EXIT=$?"
	sed -n '1,12s/^/active: dom0: /p' /tmp/active-dom0.txt
	_r=$(grep -c "^#   ring .*(d\($1\|$2\) " /tmp/active-dom0.txt)
	_s=$(grep -c "^ .* d\($1\|$2\) " /tmp/active-dom0.txt)
	echo "PMUVIRT-XEN-PROF-ACTIVE-DOM0 rings of d$1 and d$2: $_r, lines: $_s"
	[ "$_r" = 0 ] && [ "$_s" = 0 ] && echo "PMUVIRT-XEN-PROF-ACTIVE-DOM0-PASSED"
	/usr/bin/xl dmesg | grep "profiling started\|profiling ring\|prof" | tail -n 3 | sed 's/^/active: /'
}
# dom0's own kernel and Debian's perf on its PMU (a PV kernel's, through
# XENPMU_*): stock_perf_test's counting and sampling, perf stat and perf
# record, with perf's sample-rate throttling off (each guest PMI takes
# several traps).
dom0_stock_perf() {
	echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
	for t in emulated:PERF "perf-stat emulated":PERF-STAT perf-record:PERF-RECORD; do
		LD_LIBRARY_PATH=/lib/x86_64-linux-gnu /stock_perf_test ${t%:*} >/tmp/perf-dom0.txt 2>&1
		rc=$?
		sed 's/^/dom0: /' /tmp/perf-dom0.txt
		echo "PMUVIRT-DOM0-STOCK-${t#*:}-EXIT=$rc"
	done
}
# Xen's toolstack in dom0: xenstored, dom0's entries, xenconsoled.
toolstack_up() {
	for m in xen-gntdev xen-gntalloc; do insmod /lib/modules/$m.ko; done
	mkdir -p /run /var/lib /var/log/xen/console /var/lock
	mount -t tmpfs tmpfs /run
	mount -t tmpfs tmpfs /var/lib
	# xenconsoled gives each guest console a pty, even when it only logs.
	mkdir -p /dev/pts
	mount -t devpts devpts /dev/pts
	mkdir -p /run/xen /run/xenstored /var/lib/xen /var/lib/xenstored
	ln -s /run /var/run
	export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
	/usr/bin/xenstored --pid-file /run/xenstored.pid && echo "PMUVIRT-DOM0-XENSTORED"
	/usr/bin/xen-init-dom0 && echo "PMUVIRT-DOM0-INIT-DOM0"
	/usr/bin/xenconsoled --pid-file=/run/xenconsoled.pid --log=guest --log-dir=/var/log/xen/console &&
		echo "PMUVIRT-DOM0-XENCONSOLED"
}
# watch_domu NAME CONSOLE_LOG: the running domain pmuvirt-NAME's console
# shown live, each line as "NAME: "; returns when the domain is gone
# (destroyed after 3000 s).
watch_domu() {
	_t0=$(cut -d. -f1 /proc/uptime)
	tail -F "$2" 2>/dev/null | sed "s/^/$1: /" &
	_i=0
	while [ $_i -lt 3000 ] && /usr/bin/xl list | grep -q "^pmuvirt-$1 "; do
		sleep 1
		_i=$((_i + 1))
	done
	/usr/bin/xl list | grep -q "^pmuvirt-$1 " &&
		{ echo "PMUVIRT-DOM0-STOCK-TIMEOUT $1"; /usr/bin/xl destroy "pmuvirt-$1"; }
	# tail polls once a second: its last lines before it goes
	sleep 3
	kill $! 2>/dev/null
	echo "PMUVIRT-DOM0-STOCK-ENDED $1 seconds=$(( $(cut -d. -f1 /proc/uptime) - _t0 ))"
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
insmod /lib/modules/xen-privcmd.ko
insmod /lib/modules/xen-evtchn.ko
insmod /lib/modules/xenfs.ko
mkdir -p /proc/xen
mount -t xenfs xenfs /proc/xen
echo "PMUVIRT-XEN-DOM0-UP cpus=$(grep -c ^processor /proc/cpuinfo)"
# The kernel's symbols for profiles, in System.map's format (Debian's
# System.map is a placeholder); a PV kernel is not relocated, so dom0's
# addresses are the domUs' too, which run the same image (not their
# modules': those lines are left out).
echo 0 >/proc/sys/kernel/kptr_restrict
grep -v '\[' /proc/kallsyms >/tmp/kallsyms
if grep -q pmuvirt_domu_boot /proc/cmdline; then
	# A PV and a PVH domU through Xen's own toolstack, on the one PCPU
	# with dom0, which spins meanwhile: each domU's threads must count
	# their own work only.  Then dom0 saves and restores each domU in the
	# middle of its last loops.
	# First dom0's own perf on the emulated PMU (no profiling session
	# yet), after XENPMU_* from user space: answers and refusals that must
	# leave the kernel's PMU as it was for the tests after.
	/xenpmu_abi_test
	echo "PMUVIRT-DOM0-XENPMU-ABI-EXIT=$?"
	dom0_stock_perf
	toolstack_up
	t0=$(cut -d. -f1 /proc/uptime)
	# Xen numbers a fresh boot's domains from 1: each domU is told the
	# other's domid (and the boot script checks that they got 1 and 2).
	for d in a:2:pv:pmuvirt_active "b:1:pvh:pmuvirt_split pmuvirt_active"; do
		n=${d%%:*} r=${d#*:} p=${r%%:*} r=${r#*:} t=${r%%:*} x=${r#*:}
		/usr/bin/xl create -p /etc/xen/domu.cfg "name=\"pmuvirt-$n\"" "type=\"$t\"" \
			"extra=\"console=hvc0 panic=-1 quiet nmi_watchdog=0 pmuvirt_peer=$p $x\"" &&
			echo "PMUVIRT-DOM0-CREATED $n $t"
	done
	echo "PMUVIRT-DOM0-CREATE-SECONDS $(( $(cut -d. -f1 /proc/uptime) - t0 ))"
	/usr/bin/xl list
	echo "PMUVIRT-DOM0-DOMIDS $(/usr/bin/xl domid pmuvirt-a) $(/usr/bin/xl domid pmuvirt-b)"
	# dom0 manages the (still paused) domUs: it may read and set their VCPUs.
	/xen_access_test dom0 $(/usr/bin/xl domid pmuvirt-a) $(/usr/bin/xl domid pmuvirt-b)
	echo "PMUVIRT-XEN-ACCESS-DOM0-EXIT=$?"
	# The domUs run under a system-wide profile that names them (passive:
	# they run no profiling code of their own); /domu-run.sh starts them,
	# saves and restores each, and returns when both are gone.
	a=$(/usr/bin/xl domid pmuvirt-a)
	b=$(/usr/bin/xl domid pmuvirt-b)
	log=/var/log/xen/console/guest-pmuvirt
	# First the PVH domU alone, under a session that names it: its kernel
	# and user loops must come out 1:3 at its own IPs (split_session).
	/usr/bin/xl unpause pmuvirt-b
	split_session pmuvirt-b $b $log-b.log
	# Then both, active in a session of their own.
	/usr/bin/xl unpause pmuvirt-a
	active_session $a $b
	/pmuvirt-xenprof record -d 0 -d $a -d $b -c $domu_prof_period -o /tmp/domu.data -- sh /domu-run.sh
	echo "PMUVIRT-XEN-PROF-DOMU-RECORD-EXIT=$?"
	echo "PMUVIRT-DOM0-DOMUS-SECONDS $(( $(cut -d. -f1 /proc/uptime) - t0 ))"
	/pmuvirt-report -i /tmp/domu.data --xen-syms /xen-syms --map 0=/tmp/kallsyms \
		--map $a=/tmp/kallsyms --map $b=/tmp/kallsyms --top 100000 >/tmp/domu.txt
	echo "PMUVIRT-XEN-PROF-DOMU-REPORT-EXIT=$?"
	sed -n '1,40s/^/prof: /p' /tmp/domu.txt
	/xen_prof_test domus /tmp/domu.txt d$a d$b
	/usr/bin/xl list
	# a migrated domain logs to the name it had while it came in
	echo "PMUVIRT-DOM0-CONSOLE-LOGS" $(ls /var/log/xen/console)
	for d in a b; do
		cat $log-$d.log $log-$d--incoming.log 2>/dev/null | sed "s/^/domu-$d: /"
	done
elif grep -q pmuvirt_smp_boot /proc/cmdline; then
	# Two PCPUs for six VCPUs: dom0's two, and a PV and a PVH domU of two
	# each.  The domUs run the guest tests under a system-wide profile
	# while dom0 moves their VCPUs between the PCPUs (xl vcpu-pin) and
	# takes PCPU 1 offline and back (/smp-run.sh).
	toolstack_up
	repeat=$(sed -n 's/.*pmuvirt_imode_repeat=\([0-9]*\).*/\1/p' /proc/cmdline)
	for d in a:pv b:pvh; do
		n=${d%%:*} t=${d##*:}
		/usr/bin/xl create -p /etc/xen/domu.cfg "name=\"pmuvirt-$n\"" "type=\"$t\"" \
			"extra=\"console=hvc0 panic=-1 quiet nmi_watchdog=0 pmuvirt_smp pmuvirt_imode_repeat=${repeat:-0}\"" &&
			echo "PMUVIRT-DOM0-CREATED $n $t"
	done
	a=$(/usr/bin/xl domid pmuvirt-a)
	b=$(/usr/bin/xl domid pmuvirt-b)
	log=/var/log/xen/console/guest-pmuvirt
	/pmuvirt-xenprof record -d 0 -d $a -d $b -c $domu_prof_period -o /tmp/smp.data -- sh /smp-run.sh
	echo "PMUVIRT-XEN-PROF-SMP-RECORD-EXIT=$?"
	/pmuvirt-report -i /tmp/smp.data --xen-syms /xen-syms --map 0=/tmp/kallsyms \
		--map $a=/tmp/kallsyms --map $b=/tmp/kallsyms --top 100000 >/tmp/smp.txt
	echo "PMUVIRT-XEN-PROF-SMP-REPORT-EXIT=$?"
	sed -n '1,30s/^/prof: /p' /tmp/smp.txt
	for d in a b; do
		sed "s/^/domu-$d: /" $log-$d.log
	done
	# A PCPU goes down while a session runs (its idle context on it), the
	# session stops and is freed while it is down, the PCPU comes back and
	# a session counts on it again: nothing of the freed session is read.
	/pmuvirt-xenprof record -c $prof_period -o /tmp/hp.data -- /usr/bin/xen-hptool cpu-offline 1
	echo "PMUVIRT-XEN-HP-OFFLINE-RECORD-EXIT=$?"
	/usr/bin/xen-hptool cpu-online 1
	echo "PMUVIRT-XEN-HP-ONLINE-EXIT=$?"
	/pmuvirt-xenprof record -c $prof_period --cpu 0 -o /tmp/hp2.data -- /xen_prof_test hot $lossy_rounds
	echo "PMUVIRT-XEN-HP-AGAIN-RECORD-EXIT=$?"
	/pmuvirt-report -i /tmp/hp2.data --exe 0=/xen_prof_test --top 100000 >/tmp/hp2.txt
	echo "PMUVIRT-XEN-HP-AGAIN-REPORT-EXIT=$?"
	sed -n '1,12s/^/prof-hp: /p' /tmp/hp2.txt
elif grep -q pmuvirt_hvm_boot /proc/cmdline; then
	# An HVM domU with QEMU as its device model in dom0 (hvm.cfg), its
	# serial port in a file: the guest tests on Xen's emulated PMU, a save
	# that Xen's test instrument makes fail, then a save and a restore.
	toolstack_up
	t0=$(cut -d. -f1 /proc/uptime)
	# its split first (pmuvirt_split), its kernel not relocated: dom0's
	# kallsyms name its addresses
	/usr/bin/xl create -p /etc/xen/hvm.cfg \
		'cmdline="console=ttyS0 panic=-1 quiet loglevel=4 nmi_watchdog=0 pmuvirt_hvm pmuvirt_split nokaslr"'
	echo "PMUVIRT-DOM0-HVM-CREATE-EXIT=$? seconds=$(( $(cut -d. -f1 /proc/uptime) - t0 ))"
	serial=/var/log/xen/hvm-serial.log
	h=$(/usr/bin/xl domid pmuvirt-hvm)
	# Before it starts: a policy that denies branches (its stock perf test
	# counts them as zero).
	/pmuvirt-xenpolicy "$h" "deny branches" && echo "PMUVIRT-DOM0-HVM-POLICY-SET $h"
	/usr/bin/xl unpause pmuvirt-hvm
	split_session pmuvirt-hvm $h $serial
	# A restored device model starts the serial file afresh: each life's
	# output is kept in $lives before the restore.
	lives=/var/log/xen/hvm-serial-lives.log
	: >$lives
	# hvm_save_restore TAG: xl save, then xl restore; $h the new domain's id.
	hvm_save_restore() {
		_s0=$(cut -d. -f1 /proc/uptime)
		/usr/bin/xl save pmuvirt-hvm /var/lib/xen/hvm.save || return 1
		echo "PMUVIRT-DOM0-SAVED $1"
		cat $serial >>$lives
		_s1=$(cut -d. -f1 /proc/uptime)
		/usr/bin/xl restore /var/lib/xen/hvm.save && echo "PMUVIRT-DOM0-RESTORED $1"
		_rc=$?
		echo "PMUVIRT-DOM0-SAVE-SECONDS $1 save $((_s1 - _s0)) restore $(( $(cut -d. -f1 /proc/uptime) - _s1 )) image $(du -m /var/lib/xen/hvm.save | cut -f1) MiB"
		rm -f /var/lib/xen/hvm.save
		h=$(/usr/bin/xl domid pmuvirt-hvm)
		return $_rc
	}
	if wait_for $serial PMUVIRT-DOMU-FAIL-SAVE-WAITING 300; then
		/usr/bin/xl set-parameters pmuvirt-fail-save=$h && echo "PMUVIRT-DOM0-FAIL-SAVE-SET $h"
		s0=$(cut -d. -f1 /proc/uptime)
		/usr/bin/xl save pmuvirt-hvm /var/lib/xen/hvm.save || echo "PMUVIRT-DOM0-SAVE-FAILED hvm"
		echo "PMUVIRT-DOM0-FAIL-SAVE-SECONDS $(( $(cut -d. -f1 /proc/uptime) - s0 ))"
		rm -f /var/lib/xen/hvm.save
		/usr/bin/xl dmesg | grep -q "pmuvirt: d${h}v0: counters cannot be saved (-5): the save fails" &&
			echo "PMUVIRT-DOM0-FAIL-SAVE-LOGGED d${h}v0"
		# the suspend was cancelled: the domain runs (r), blocks (b) or waits
		# for the PCPU (no flag), neither paused nor shut down
		st=$(/usr/bin/xl list pmuvirt-hvm | sed -n 's/^pmuvirt-hvm  *'$h'  *[0-9]*  *[0-9]*  *\([-rbpscd]*\) .*/\1/p')
		case "$st" in
		*[pscd]* | "") echo "PMUVIRT-DOM0-FAIL-SAVE-STATE '$st'" ;;
		*) echo "PMUVIRT-DOM0-FAIL-SAVE-RUNNING $st" ;;
		esac
		/usr/bin/xl set-parameters pmuvirt-fail-save=0 && echo "PMUVIRT-DOM0-FAIL-SAVE-RESET"
		/xs_rendezvous write /local/domain/$h/data/pmuvirt-failed 0
	fi
	# In the middle of xen_save_guest's loops: saved and restored.
	wait_for $serial PMUVIRT-SAVE-READY 300 && hvm_save_restore hvm
	# Last, while the guest's own perf stat counts: saved and restored,
	# then told by a XenStore key (stock_perf_test perf-across).
	if wait_for $serial PMUVIRT-STOCK-PERF-ACROSS-READY 300 && hvm_save_restore perf; then
		/xs_rendezvous write /local/domain/$h/data/pmuvirt-perf-restored 1 &&
			echo "PMUVIRT-DOM0-PERF-RESTORED-TOLD $h"
	fi
	i=0
	while [ $i -lt 300 ] && /usr/bin/xl list | grep -q pmuvirt-hvm; do
		sleep 1
		i=$((i + 1))
	done
	/usr/bin/xl list | grep -q pmuvirt-hvm || echo "PMUVIRT-DOM0-HVM-ENDED"
	echo "PMUVIRT-DOM0-HVM-SECONDS $(( $(cut -d. -f1 /proc/uptime) - t0 ))"
	cat $lives $serial | sed 's/^/hvm: /'
elif grep -q pmuvirt_stock_boot /proc/cmdline; then
	# Stock guests: Debian's kernel without pmuvirt.ko, first as a PVH,
	# then as an HVM domU, each alone, runs Linux's perf test (and the HVM
	# one PAPI's test suite on Debian's libpapi) on the PMU Xen emulates
	# for it (stock-init.sh).
	toolstack_up
	# stock_domu NAME CONSOLE_LOG XL_ARGS...: xl creates the domain, then
	# watch_domu.
	stock_domu() {
		_n=$1 _log=$2
		shift 2
		/usr/bin/xl create "$@" && echo "PMUVIRT-DOM0-STOCK-CREATED $_n"
		watch_domu "$_n" "$_log"
	}
	stock_domu stock-pvh /var/log/xen/console/guest-pmuvirt-stock-pvh.log /etc/xen/domu.cfg \
		'name="pmuvirt-stock-pvh"' 'type="pvh"' 'memory=384' 'ramdisk="/domu/stock.cpio.gz"' \
		'extra="console=hvc0 panic=-1 quiet loglevel=4 nmi_watchdog=0"'
	stock_domu stock-hvm /var/log/xen/stock-hvm-serial.log /etc/xen/hvm.cfg \
		'name="pmuvirt-stock-hvm"' 'memory=384' 'ramdisk="/domu/stock.cpio.gz"' \
		'serial="file:/var/log/xen/stock-hvm-serial.log"' \
		'cmdline="console=ttyS0 panic=-1 quiet loglevel=4 nmi_watchdog=0 pmuvirt_stock_hvm"'
elif grep -q pmuvirt_off_boot /proc/cmdline; then
	# Stock guests' PMU off, for every domain (Xen's pmuvirt-vpmu=0,
	# pmuvirt_off_boot=all) or for one domain by its policy
	# (pmuvirt-xenpolicy --no-vpmu before it runs, pmuvirt_off_boot=policy):
	# a PVH domU sees no PMU, and with pmuvirt-vpmu=0 neither does dom0 (PV).
	off=$(sed -n 's/.*pmuvirt_off_boot=\([a-z]*\).*/\1/p' /proc/cmdline)
	if [ "$off" = all ]; then
		/stock_perf_test no-pmu >/tmp/no-pmu.txt 2>&1
		rc=$?
		sed 's/^/dom0: /' /tmp/no-pmu.txt
		echo "PMUVIRT-DOM0-NO-PMU-EXIT=$rc"
	fi
	dmesg | grep -i "vpmu\|Performance Events" | sed 's/^\[[^]]*\] /dom0: /'
	toolstack_up
	/usr/bin/xl create -p /etc/xen/domu.cfg 'name="pmuvirt-nopmu"' 'type="pvh"' \
		'extra="console=hvc0 panic=-1 quiet nmi_watchdog=0 pmuvirt_nopmu"' &&
		echo "PMUVIRT-DOM0-STOCK-CREATED nopmu"
	if [ "$off" = policy ]; then
		/pmuvirt-xenpolicy --no-vpmu "$(/usr/bin/xl domid pmuvirt-nopmu)"
		echo "PMUVIRT-DOM0-NO-VPMU-POLICY-EXIT=$?"
	fi
	/usr/bin/xl unpause pmuvirt-nopmu
	watch_domu nopmu /var/log/xen/console/guest-pmuvirt-nopmu.log
elif grep -q pmuvirt_refused_boot /proc/cmdline; then
	# Xen's vPMU or the NMI watchdog was asked for: pmuvirt refused to start.
	/xen_policy_test refused
	echo "PMUVIRT-XEN-REFUSED-EXIT=$?"
elif grep -q pmuvirt_emulated_boot /proc/cmdline; then
	# dom0's own perf first, as in the domu boot, on an Intel CPU (QEMU's
	# Nehalem): a PV kernel of an Intel model through XENPMU_*, the page's
	# Intel context.
	dom0_stock_perf
	/xen_emu_test
	echo "PMUVIRT-XEN-EMU-EXIT=$?"
	# System-wide profiling: the session's rules and arbitration, then a
	# profile of a program with a known hot function.
	/xen_prof_test rules
	echo "PMUVIRT-XEN-PROF-RULES-EXIT=$?"
	# The loop below runs alone on VCPU 0 for seconds: no real-time throttling.
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	# Its VCPU's time without a session, for the session's cost.
	/xen_prof_test hot $prof_rounds
	# The drainer on VCPU 1: the loop owns VCPU 0.
	/pmuvirt-xenprof record -c $prof_period --cpu 1 -o /tmp/hot.data -- /xen_prof_test hot $prof_rounds
	echo "PMUVIRT-XEN-PROF-RECORD-EXIT=$?"
	/pmuvirt-report -i /tmp/hot.data --xen-syms /xen-syms --map 0=/tmp/kallsyms \
		--exe 0=/xen_prof_test --top 100000 >/tmp/hot.txt
	echo "PMUVIRT-XEN-PROF-REPORT-EXIT=$?"
	sed -n '1,30s/^/prof: /p' /tmp/hot.txt
	/xen_prof_test check /tmp/hot.txt $prof_period $prof_work_a $prof_work_b
	# Rings of 32 records drained only at the end: the loss is counted.
	/pmuvirt-xenprof record -c $prof_period --pages 2 --no-virq --drain-ms 1000000 \
		-o /tmp/lossy.data -- /xen_prof_test hot $lossy_rounds
	echo "PMUVIRT-XEN-PROF-LOSSY-RECORD-EXIT=$?"
	/pmuvirt-report -i /tmp/lossy.data --exe 0=/xen_prof_test --top 100000 >/tmp/lossy.txt
	sed -n 's/^\(# .*\)/prof-lossy: \1/p' /tmp/lossy.txt
	/xen_prof_test check /tmp/lossy.txt $prof_period $lossy_work_a $lossy_work_b lossy
	# The same rings drained by the VIRQ alone (its timer drain would come
	# after 1000 s): a ring at its mark of 16 records calls the drain, on
	# VCPU 1, before it fills; none is lost.
	/pmuvirt-xenprof record -c $prof_period --pages 2 --high-water 50 --drain-ms 1000000 \
		--cpu 1 -o /tmp/virq.data -- /xen_prof_test hot $lossy_rounds 2>/tmp/virq.log
	echo "PMUVIRT-XEN-PROF-VIRQ-RECORD-EXIT=$?"
	sed 's/^/prof-virq: /' /tmp/virq.log
	/pmuvirt-report -i /tmp/virq.data --exe 0=/xen_prof_test --top 100000 >/tmp/virq.txt
	sed -n 's/^\(# .*\)/prof-virq: \1/p' /tmp/virq.txt
	/xen_prof_test check /tmp/virq.txt $prof_period $lossy_work_a $lossy_work_b virq /tmp/virq.log
	# Both levels on the emulated PMU: guest threads' i-mode counters
	# overflow through Xen's PMI, the VIRQ and the module's signal.
	insmod /lib/modules/pmuvirt.ko && echo "PMUVIRT-XEN-EMU-GUEST-LOADED"
	dmesg | grep "pmuvirt:" | sed 's/^/dom0: /'
	# The emulated counters live in Xen: every guest PMC read is a READ
	# hypercall, part of whose cost lands in the thread (about 1.5%).
	/vmtest imode 0.04
	echo "PMUVIRT-XEN-EMU-GUEST-EXIT=$?"
	# IP sampling through Xen's PMI and the VIRQ: two threads on VCPU 0,
	# each a 3:1 split of its work between two loops (docs/sampling.md).
	/vmtest sample
	echo "PMUVIRT-XEN-EMU-SAMPLE-EXIT=$?"
	echo "PMUVIRT-XEN-EMU-GUEST-HYPERCALLS $(cat /sys/module/pmuvirt/parameters/xen_hypercalls)"
	grep pmuvirt /proc/interrupts
	rmmod pmuvirt && echo "PMUVIRT-XEN-EMU-GUEST-UNLOADED"
	echo "PMUVIRT-XEN-EMU-GUEST-KERNEL-WARNINGS=$(dmesg | grep -c 'pmuvirt: VCPU\|pmuvirt: cannot\|WARNING:\|BUG:')"
else
	/pmuvirt_xen_test $iterations
	echo "PMUVIRT-XEN-TEST-EXIT=$?"
	/xen_domains_test
	echo "PMUVIRT-XEN-DOMAINS-EXIT=$?"
	/xen_policy_test
	echo "PMUVIRT-XEN-POLICY-EXIT=$?"
	# No profiling session on a PMU that is the TSC alone.
	/xen_prof_test nopmu
	# The guest level.  After the direct hypercall test: the module owns the
	# VCPUs' counters from here on.
	insmod /lib/modules/pmuvirt.ko && echo "PMUVIRT-XEN-GUEST-LOADED"
	dmesg | grep "pmuvirt:" | sed 's/^/dom0: /'
	/pmuvirt_xen_guest $guest_iterations
	echo "PMUVIRT-XEN-GUEST-EXIT=$?"
	# processes that exit attached leave no module reference once reaped
	/vmtest reap
	echo "PMUVIRT-XEN-GUEST-REAP-EXIT=$?"
	echo "PMUVIRT-XEN-GUEST-HYPERCALLS-TOTAL $(cat /sys/module/pmuvirt/parameters/xen_hypercalls)"
	grep pmuvirt /proc/interrupts
	rmmod pmuvirt && echo "PMUVIRT-XEN-GUEST-UNLOADED"
	/pmuvirt_xen_test empty
	dmesg | grep "pmuvirt:" | tail -n 3 | sed 's/^/dom0: /'
	# Xen refusing a control (at a switch or when unload empties the VCPUs)
	# or a kernel warning would show here.
	echo "PMUVIRT-XEN-GUEST-KERNEL-WARNINGS=$(dmesg | grep -c 'pmuvirt: VCPU\|pmuvirt: cannot\|WARNING:\|BUG:')"
fi
cat /proc/interrupts
reboot -f
