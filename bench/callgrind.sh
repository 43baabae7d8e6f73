#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Instructions of library work per switch (7 a-mode counters, null register
# access), counted by callgrind: repeatable whatever else the machine does.
# usage: bench/callgrind.sh BUILD_DIR
set -eu
build=${1:-build}
bin="$build/bench/pmuvirt-bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n1=100000
n2=200000
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" "$bin" --null-only --switches "$1" >/dev/null 2>&1
	callgrind_annotate --inclusive=yes "$tmp/cg.$1" 2>/dev/null |
		awk '/bench_switch_loop/ { gsub(",", "", $1); print $1; exit }'
}
a=$(ir $n1)
b=$(ir $n2)
per=$(( (b - a) / (n2 - n1) ))
acc=$(callgrind_annotate --inclusive=yes "$tmp/cg.$n2" 2>/dev/null |
	awk '/null_read_counter|null_read_tsc|null_read_reg|null_write_reg/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
echo "instructions per switch, inclusive: $per"
echo "of which in the null register accessors (over $n2 switches): $acc total, $(( acc / n2 )) per switch"
echo "library logic per switch: $(( per - acc / n2 ))"
