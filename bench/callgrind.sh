#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Instructions of library work per operation with null register access
# (x86 backend, fake Intel v4 PMU, 4 general + 3 fixed counters; the last
# two rows: POWER backend, POWER8 with PMC1-6 and the time base), counted
# by callgrind: repeatable whatever else the machine does.  Each figure is
# the difference of two runs (N2 and N1 operations) divided by N2 - N1, so
# set-up costs cancel; the null accessors' own instructions (exclusive
# cost of the bench's null_* functions) are subtracted.
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
# inclusive instructions of the loop function $3 in run $1 $2
loop_ir() {
	callgrind_annotate --inclusive=yes "$tmp/cg.$1.$2" 2>/dev/null |
		awk -v f="$3" '$0 ~ ("bench_switch.c:" f " ") { gsub(",", "", $1); print $1; exit }'
}
# exclusive instructions of the null accessors in run $1 $2
acc_ir() {
	callgrind_annotate "$tmp/cg.$1.$2" 2>/dev/null |
		awk '/bench_switch\.c:null_[a-z_]* \[/ && !/=>/ { gsub(",", "", $1); s += $1 } END { print s + 0 }'
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
measure pmip bench_pmi_loop "PMI, a session's counter + 3 own, one Xen record:"
measure p-a bench_switch_loop "POWER8: a-mode switch, 7 counters, identical:"
measure p-i bench_switch_loop "POWER8: switch, 1 i-mode + 6 a-mode counters each:"
