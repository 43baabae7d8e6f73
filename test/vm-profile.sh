# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by a guest's /init (vm-linux's), which defines
# fail MSG.  The guest holds /pmuvirt-record, /pmuvirt-report and
# /vmtest-pie (built by the job's run.sh) and has pmuvirt.ko loaded.
#
# vm_profile PERIOD ROUNDS: pmuvirt-record samples instructions every
# PERIOD (with the TSC's values in each record) over `vmtest-pie profile
# ROUNDS`: two threads on CPU 0, spin-ab with 3/4 of its loop work in
# spin_a and 1/4 in spin_b, spin-cd likewise in spin_c and spin_d.
# pmuvirt-report's profile must split each thread's spin functions 3:1
# within 3%, name vmtest-pie as their file, hold no function of the other
# thread and no lost record; every record of a spin function names the
# thread that ran it and carries both counters' values; the folded output
# has both threads' stacks and kernel frames; kernel samples (the
# command's start, page faults) are named from the guest's kallsyms.
# Prints "vm: profile: ..." lines; fail names what did not hold.  The
# files go to $vm_dir (default /).
vm_profile() {
	_period=$1 _rounds=$2
	/pmuvirt-record -e instructions,tsc --values -c "$_period" -m 256 -o ${vm_dir:-}/prof.data -- \
		/vmtest-pie profile "$_rounds" >${vm_dir:-}/prof.out 2>${vm_dir:-}/prof.err || fail "pmuvirt-record"
	sed 's/^/vm: record: /' ${vm_dir:-}/prof.err
	/pmuvirt-report -i ${vm_dir:-}/prof.data >${vm_dir:-}/prof.txt 2>${vm_dir:-}/prof.rerr || fail "pmuvirt-report"
	# the kernel makes /proc/kallsyms slowly: once, for both of these
	cat /proc/kallsyms >${vm_dir:-}/kallsyms
	/pmuvirt-report -i ${vm_dir:-}/prof.data --kallsyms ${vm_dir:-}/kallsyms --folded >${vm_dir:-}/prof.folded 2>>${vm_dir:-}/prof.rerr ||
		fail "pmuvirt-report --folded"
	/pmuvirt-report -i ${vm_dir:-}/prof.data --kallsyms ${vm_dir:-}/kallsyms --dump >${vm_dir:-}/prof.dump 2>>${vm_dir:-}/prof.rerr ||
		fail "pmuvirt-report --dump"
	sed 's/^/vm: report: /' ${vm_dir:-}/prof.rerr
	grep -v '^$' ${vm_dir:-}/prof.txt | sed -n '1,3p; /^# thread spin/,$p' | head -30 | sed 's/^/vm:   /'
	_t0=$(sed -n 's/^vm: profile thread 0 tid //p' ${vm_dir:-}/prof.out)
	_t1=$(sed -n 's/^vm: profile thread 1 tid //p' ${vm_dir:-}/prof.out)
	awk -v t0="$_t0" -v t1="$_t1" '
		/^# thread / { cur = $5; comm[cur] = $3; lost[cur] = $(NF - 1); next }
		/^ *[0-9.]+% / { n[cur, $4] += $2; all[cur] += $2; if ($4 ~ /^spin_/) dso[cur, $4] = $5 }
		function check(t, name, a, b, x, y,   r, e) {
			r = n[t, b] ? n[t, a] / n[t, b] : 0; e = (r - 3) / 3; if (e < 0) e = -e
			printf "vm: profile: thread %s (%s): %s %d, %s %d, ratio %.4f (error %.2f%% of 3:1), of %d samples; other thread %d, lost %s\n",
				t, comm[t], a, n[t, a], b, n[t, b], r, 100 * e, all[t], n[t, x] + n[t, y], lost[t]
			if (comm[t] != name || e > 0.03 || n[t, x] + n[t, y] || lost[t] != 0 ||
			    n[t, a] + n[t, b] < 0.95 * all[t] || dso[t, a] != "vmtest-pie") bad++
		}
		END { if (t0 == "" || t1 == "") bad++
			check(t0, "spin-ab", "spin_a", "spin_b", "spin_c", "spin_d")
			check(t1, "spin-cd", "spin_c", "spin_d", "spin_a", "spin_b")
			exit bad != 0 }' ${vm_dir:-}/prof.txt || fail "pmuvirt-report: per-thread profile"
	# every record of a spin function names the thread that runs it
	awk -v t0="$_t0" -v t1="$_t1" '{ split($2, id, "/") }
		$10 ~ /^spin_[ab]$/ && id[1] != t0 { bad++ } $10 ~ /^spin_[cd]$/ && id[1] != t1 { bad++ }
		$10 ~ /^spin_/ { n++ } NF != 17 { novals++ }
		END { print "vm: profile: " NR " records, " n " in the spin functions, " bad + 0 " of another thread, " novals + 0 " without the two counters values";
			exit bad || novals || n < 1000 }' \
		${vm_dir:-}/prof.dump || fail "pmuvirt-report --dump: records of another thread"
	grep -q '^spin-ab;spin_a [0-9]' ${vm_dir:-}/prof.folded && grep -q '^spin-cd;spin_d [0-9]' ${vm_dir:-}/prof.folded &&
		grep -q '_\[k\] [0-9]' ${vm_dir:-}/prof.folded || fail "pmuvirt-report --folded"
	grep -q '\[k\] ' ${vm_dir:-}/prof.txt || fail "pmuvirt-report: no kernel samples"
	grep -q '\[k\] \[unknown\]' ${vm_dir:-}/prof.txt ${vm_dir:-}/prof.dump && fail "pmuvirt-report: kernel samples without a name"
	grep -q 'records named another thread\|records lost\|never captured' ${vm_dir:-}/prof.rerr &&
		fail "pmuvirt-report warned"
	return 0
}

# vm_chain PERIOD ROUNDS: pmuvirt-record -g samples instructions every
# PERIOD over `vmtest-pie chain ROUNDS`: one leaf (chain_leaf) called
# through chain_via_a for 3/4 of the work and chain_via_b for 1/4.  The
# folded stacks must split the leaf's weight 3:1 between the two callers
# within 3% (the IP alone cannot: it is the leaf's in every sample), every
# leaf sample must have a caller, the dump must list each record's chain,
# and some kernel sample must carry two or more kernel frames (the
# kernel's unwinder) under a user frame.  Recorded again counting user
# mode only, no record may carry kernel frames.
vm_chain() {
	_period=$1 _rounds=$2
	/pmuvirt-record -g -e instructions -c "$_period" -m 256 -o ${vm_dir:-}/chain.data -- \
		/vmtest-pie chain "$_rounds" >${vm_dir:-}/chain.out 2>${vm_dir:-}/chain.err || fail "pmuvirt-record -g"
	sed 's/^/vm: record -g: /' ${vm_dir:-}/chain.err
	[ -s ${vm_dir:-}/kallsyms ] || cat /proc/kallsyms >${vm_dir:-}/kallsyms
	/pmuvirt-report -i ${vm_dir:-}/chain.data --kallsyms ${vm_dir:-}/kallsyms --folded >${vm_dir:-}/chain.folded 2>${vm_dir:-}/chain.rerr ||
		fail "pmuvirt-report --folded (chains)"
	/pmuvirt-report -i ${vm_dir:-}/chain.data --kallsyms ${vm_dir:-}/kallsyms --dump >${vm_dir:-}/chain.dump 2>>${vm_dir:-}/chain.rerr ||
		fail "pmuvirt-report --dump (chains)"
	sed 's/^/vm: report: /' ${vm_dir:-}/chain.rerr
	sort -t' ' -k2 -n -r ${vm_dir:-}/chain.folded | head -8 | sed 's/^/vm:   /'
	awk '{ w = $NF; $NF = ""; all += w }
		/;chain_leaf $/ { leaf += w }
		/;chain_via_a;chain_leaf $/ { a += w }
		/;chain_via_b;chain_leaf $/ { b += w }
		{ n = split($0, f, ";"); k = 0; for (i = 2; i <= n; i++) if (f[i] ~ /_\[k\] *$/) k++
		  if (k >= 2 && f[2] !~ /_\[k\]/) kchains++ }
		END { r = b ? a / b : 0; e = (r - 3) / 3; if (e < 0) e = -e
			printf "vm: chain: via_a %d, via_b %d, ratio %.4f (error %.2f%% of 3:1); leaf %d of %d; %d kernel stacks of 2+ frames under user ones\n",
				a, b, r, 100 * e, leaf, all, kchains
			exit !(e <= 0.03 && a + b == leaf && leaf >= 0.95 * all && a + b >= 1000 && kchains > 0) }' \
		${vm_dir:-}/chain.folded || fail "pmuvirt-report --folded: callers of chain_leaf not 3:1"
	grep -q ' chain chain_via_[ab] ' ${vm_dir:-}/chain.dump || fail "pmuvirt-report --dump: no chains"
	# user mode only: a record the PMI took in the kernel has no kernel frames
	/pmuvirt-record -g -e instructions:u -c "$_period" -m 256 -o ${vm_dir:-}/chainu.data -- \
		/vmtest-pie chain 2 >/dev/null 2>&1 || fail "pmuvirt-record -g -e instructions:u"
	/pmuvirt-report -i ${vm_dir:-}/chainu.data --kallsyms ${vm_dir:-}/kallsyms --dump \
		>${vm_dir:-}/chainu.dump 2>/dev/null || fail "pmuvirt-report --dump (:u chains)"
	awk '/ \[k\] / { k++ } / chain .*_\[k\]/ { kf++ }
		END { printf "vm: chain :u: %d records, %d at kernel IPs, %d with kernel frames\n", NR, k, kf
			exit NR < 100 || kf }' ${vm_dir:-}/chainu.dump ||
		fail "pmuvirt-record -g: kernel frames in a user-mode recording"
	grep -q 'records lost\|never captured' ${vm_dir:-}/chain.rerr && fail "pmuvirt-report warned (chains)"
	return 0
}
