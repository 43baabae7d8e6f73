#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Run the VM jobs many times in a row on a loaded machine and summarise
# every error figure they print: the proof that they pass every time.
#
# usage: tools/vm-soak.sh [-n RUNS] [-j JOB]... [-b BOOTS] [-H HOGS] [BUILD_DIR]
#   -n RUNS   runs of each job (default 10)
#   -j JOB    vm-linux or vm-xen; repeatable (default: both)
#   -b BOOTS  vm-xen: only these boots ("real domu", PMUVIRT_XEN_BOOTS); a
#             run passes when all of them did (the vm-xen test itself
#             fails a partial run)
#   -H HOGS   CPU hogs (shell busy loops) kept running meanwhile
#             (default: one per CPU; 0 runs on a quiet machine)
#   BUILD_DIR a configured CMake build folder (default <source>/build)
# Each run's console logs are kept in BUILD_DIR/soak/JOB-N/.  Prints one
# line per run, then min / median / max of each figure, and exits 0 only
# when every run passed.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
runs=10
jobs=""
hogs=$(nproc 2>/dev/null || echo 2)
boots=""
while getopts n:j:b:H: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	j) jobs="$jobs $OPTARG" ;;
	b) boots=$OPTARG ;;
	H) hogs=$OPTARG ;;
	*) echo "usage: tools/vm-soak.sh [-n RUNS] [-j JOB]... [-b BOOTS] [-H HOGS] [BUILD_DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
build=${1:-$top/build}
jobs=${jobs:-vm-linux vm-xen}
[ -f "$build/CMakeCache.txt" ] || { echo "vm-soak: $build is not a configured build folder" >&2; exit 2; }
build=$(cd "$build" && pwd)
out=$build/soak
mkdir -p "$out"

hog_pids=""
stop_hogs() {
	for p in $hog_pids; do kill "$p" 2>/dev/null || true; done
}
trap stop_hogs EXIT INT TERM
i=0
while [ "$i" -lt "$hogs" ]; do
	sh -c 'while :; do :; done' &
	hog_pids="$hog_pids $!"
	i=$((i + 1))
done
echo "vm-soak: $runs runs of:$jobs, with $hogs CPU hogs, logs in $out"

# The job's console logs, where its run script leaves them.
logs_of() {
	case $1 in
	vm-linux) echo "$build/vm-linux/console-icount.log $build/vm-linux/console-smp.log" ;;
	vm-xen) ls "$build"/xen/vm-xen/console-*.log 2>/dev/null || true ;;
	esac
}

failed=0
for job in $jobs; do
	case $job in
	vm-linux) label=vm-linux ;;
	vm-xen) label=vm-xen ;;
	*) echo "vm-soak: unknown job $job" >&2; exit 2 ;;
	esac
	n=1
	while [ "$n" -le "$runs" ]; do
		dir=$out/$job-$n
		rm -rf "$dir"
		mkdir -p "$dir"
		start=$(date +%s)
		if [ "$job" = vm-xen ] && [ -n "$boots" ]; then
			PMUVIRT_XEN_BOOTS=$boots ctest --test-dir "$build" -L "^$label\$" \
				--output-on-failure >"$dir/ctest.log" 2>&1 || true
			if grep -q "vm-xen: boots passed: $boots\$" "$dir/ctest.log"; then
				verdict=pass
			else
				verdict=FAIL
				failed=$((failed + 1))
			fi
		elif ctest --test-dir "$build" -L "^$label\$" --output-on-failure >"$dir/ctest.log" 2>&1; then
			verdict=pass
		else
			verdict=FAIL
			failed=$((failed + 1))
		fi
		for f in $(logs_of "$job"); do
			[ -f "$f" ] && cp "$f" "$dir/"
		done
		echo "vm-soak: $job run $n: $verdict in $(($(date +%s) - start)) s"
		n=$((n + 1))
	done
done

python3 "$top/tools/vm-soak-figures.py" "$out" $jobs
echo "vm-soak: $failed failed runs"
[ "$failed" = 0 ]
