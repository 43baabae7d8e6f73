#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Instructions of library work per operation with null register access
# (x86 backend, fake Intel v4 PMU, 4 general + 3 fixed counters; the last
# two rows: POWER backend, POWER8 with PMC1-6 and the time base), counted
# by callgrind: repeatable whatever else the machine does.  Each figure is
# the difference of two runs (N2 and N1 operations) divided by N2 - N1, so
# set-up costs cancel; the null accessors' own instructions (exclusive
# cost of the bench's null_* functions) are subtracted.
# The vPMU rows run pmuvirt-bench-vpmu (bench/bench_vpmu.c): a VCPU switch
# of a stock guest's four-counter context, a guest MSR intercept, a guest
# PMI; the same subtraction of its null accessors.
# usage: bench/callgrind.sh BUILD_DIR
set -eu
build=${1:-build}
bin="$build/bench/pmuvirt-bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n1=100000
n2=200000
# run WHAT N: callgrind output of N operations (WHAT p-a, p-i: --power a, i)
run() {
	case "$1" in
	p-*) set -- "$1" "$2" --power --what "${1#p-}" ;;
	*) set -- "$1" "$2" --what "$1" ;;
	esac
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1.$2" "$bin" --null-only \
		"$3" "$4" ${5:+"$5"} --switches "$2" >/dev/null 2>&1
}
# inclusive instructions of function $2 of source $3 (default bench_switch.c) in output $1
incl_ir() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v f="${3:-bench_switch.c}:$2 " 'index($0, f) { gsub(",", "", $1); print $1; exit }'
}
# exclusive instructions of the null accessors of source $2 in output $1
null_ir() {
	callgrind_annotate "$1" 2>/dev/null |
		awk -v f="${2:-bench_switch.c}:null_" 'index($0, f) && / \[/ && !/=>/ {
			gsub(",", "", $1); s += $1 } END { print s + 0 }'
}
# inclusive instructions of the loop function $3 in run $1 $2
loop_ir() {
	incl_ir "$tmp/cg.$1.$2" "$3"
}
# exclusive instructions of the null accessors in run $1 $2
acc_ir() {
	null_ir "$tmp/cg.$1.$2"
}
# measure WHAT LOOP LABEL
measure() {
	run "$1" $n1
	run "$1" $n2
	per=$(( ($(loop_ir "$1" $n2 "$2") - $(loop_ir "$1" $n1 "$2")) / (n2 - n1) ))
	acc=$(( ($(acc_ir "$1" $n2) - $(acc_ir "$1" $n1)) / (n2 - n1) ))
	printf '%-52s inclusive %5d  null accessors %4d  library %5d\n' "$3" "$per" "$acc" \
		$(( per - acc ))
}
measure a bench_switch_loop "a-mode switch, 7 counters, identical controls:"
measure i bench_switch_loop "switch, 1 i-mode + 6 a-mode counters each:"
measure pmi7 bench_pmi_loop "PMI, 7 counters, one past its threshold:"
measure pmi1 bench_pmi_loop "PMI, 1 counter, past its threshold:"
measure pmii bench_pmi_loop "PMI, 1 i-mode counter, one notification:"
measure pmis bench_pmi_loop "PMI, 1 i-mode sampling counter, one record:"
measure pmic bench_pmi_loop "PMI, the same with a call chain of 16 frames:"
measure pmip bench_pmi_loop "PMI, a session's counter + 3 own, one Xen record:"
measure p-a bench_switch_loop "POWER8: a-mode switch, 7 counters, identical:"
measure p-i bench_switch_loop "POWER8: switch, 1 i-mode + 6 a-mode counters each:"
vbin="$build/bench/pmuvirt-bench-vpmu"
n1=20000
n2=40000
# vmeasure WHAT LOOP LABEL PER [--amd]: PER operations per loop iteration
vmeasure() {
	for n in $n1 $n2; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.v$1${5:-}.$n" "$vbin" \
			--null-only --what "$1" ${5:+"$5"} --n "$n" >/dev/null 2>&1
	done
	f1="$tmp/cg.v$1${5:-}.$n1"
	f2="$tmp/cg.v$1${5:-}.$n2"
	per=$(( ($(incl_ir "$f2" "$2" bench_vpmu.c) - $(incl_ir "$f1" "$2" bench_vpmu.c)) / (n2 - n1) / $4 ))
	acc=$(( ($(null_ir "$f2" bench_vpmu.c) - $(null_ir "$f1" bench_vpmu.c)) / (n2 - n1) / $4 ))
	printf '%-52s inclusive %5d  null accessors %4d  library %5d\n' "$3" "$per" "$acc" \
		$(( per - acc ))
}
vmeasure switch bench_vpmu_switch_loop "vPMU: VCPU switch, 4 counters, Intel v4 4+3:" 1
vmeasure switch bench_vpmu_switch_loop "vPMU: VCPU switch, 4 counters, AMD 17h:" 1 --amd
vmeasure rdmsr bench_vpmu_rdmsr_loop "vPMU: guest rdmsr of a counting counter:" 1
vmeasure wrmsr bench_vpmu_wrmsr_loop "vPMU: guest wrmsr of a counting counter:" 1
vmeasure evtsel bench_vpmu_evtsel_loop "vPMU: guest wrmsr, nothing that counts changes:" 1
vmeasure gctrl bench_vpmu_gctrl_loop "vPMU: guest wrmsr GLOBAL_CTRL (0, then 4 on):" 2
vmeasure pmi bench_vpmu_pmi_loop "vPMU: guest PMI (host PMI + perf's 6 intercepts):" 1
for part in vpmu_host_pmi vpmu_guest_handler; do
	printf '%-52s inclusive %5d\n' "  of which $part:" \
		$(( ($(incl_ir "$tmp/cg.vpmi.$n2" $part bench_vpmu.c) - \
		     $(incl_ir "$tmp/cg.vpmi.$n1" $part bench_vpmu.c)) / (n2 - n1) ))
done
vmeasure pmi bench_vpmu_pmi_loop "vPMU: guest PMI, AMD PerfMonV2:" 1 --amd
vmeasure toggle bench_vpmu_toggle_loop "vPMU: PV kernel/user switch, 4 :u counters, Intel v4:" 1
vmeasure toggle bench_vpmu_toggle_loop "vPMU: PV kernel/user switch, 4 :u counters, AMD 19h:" 1 --amd
