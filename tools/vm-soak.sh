#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Run the VM jobs many times in a row on a loaded machine and summarise
# every error figure they print: the proof that they pass every time.
#
# usage: tools/vm-soak.sh [-n RUNS] [-j JOB]... [-b BOOTS] [-s BOOTS] [-P] [-H HOGS] [BUILD_DIR]
#   -n RUNS   runs of each job (default 10)
#   -j JOB    vm-linux, vm-xen (the main set of boots) or vm-xen-stock
#             (the stock set); repeatable (default: vm-linux and vm-xen)
#   -b BOOTS  vm-xen: only these boots ("real domu", PMUVIRT_XEN_BOOTS); a
#             run passes when all of them did (the vm-xen test itself
#             fails a partial run)
#   -s BOOTS  vm-xen-stock: the same for the stock set ("hvm stock")
#   -P        run the jobs of one run at once (as the test command runs
#             vm-xen and vm-xen-stock), run after run; without it each
#             job's runs come one after the other, job after job
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
stock_boots=""
parallel=0
while getopts n:j:b:s:PH: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	j) jobs="$jobs $OPTARG" ;;
	b) boots=$OPTARG ;;
	s) stock_boots=$OPTARG ;;
	P) parallel=1 ;;
	H) hogs=$OPTARG ;;
	*) echo "usage: tools/vm-soak.sh [-n RUNS] [-j JOB]... [-b BOOTS] [-s BOOTS] [-P] [-H HOGS] [BUILD_DIR]" >&2; exit 2 ;;
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
	vm-xen-stock) ls "$build"/xen/vm-xen-stock/console-*.log "$build"/xen/vm-xen-stock/*.txt 2>/dev/null || true ;;
	esac
}

# run_job JOB N: one run of JOB; its verdict goes to BUILD_DIR/soak/JOB-N/verdict.
run_job() {
	_dir=$out/$1-$2
	rm -rf "$_dir"
	mkdir -p "$_dir"
	_start=$(date +%s)
	_verdict=FAIL
	case $1 in
	vm-linux)
		ctest --test-dir "$build" -L '^vm-linux$' --output-on-failure >"$_dir/ctest.log" 2>&1 &&
			_verdict=pass ;;
	vm-xen | vm-xen-stock)
		_boots=$boots
		[ "$1" = vm-xen-stock ] && _boots=$stock_boots
		if [ -n "$_boots" ]; then
			PMUVIRT_XEN_BOOTS=$_boots ctest --test-dir "$build" -R "^$1\$" \
				--output-on-failure >"$_dir/ctest.log" 2>&1 || true
			grep -q "vm-xen: boots passed: $_boots\$" "$_dir/ctest.log" && _verdict=pass
		else
			ctest --test-dir "$build" -R "^$1\$" --output-on-failure >"$_dir/ctest.log" 2>&1 &&
				_verdict=pass
		fi ;;
	esac
	for _f in $(logs_of "$1"); do
		[ -f "$_f" ] && cp "$_f" "$_dir/"
	done
	echo "$_verdict" >"$_dir/verdict"
	echo "vm-soak: $1 run $2: $_verdict in $(($(date +%s) - _start)) s"
}

for job in $jobs; do
	case $job in
	vm-linux | vm-xen | vm-xen-stock) ;;
	*) echo "vm-soak: unknown job $job" >&2; exit 2 ;;
	esac
done
if [ "$parallel" = 1 ]; then
	n=1
	while [ "$n" -le "$runs" ]; do
		for job in $jobs; do
			run_job "$job" "$n" &
		done
		wait
		n=$((n + 1))
	done
else
	for job in $jobs; do
		n=1
		while [ "$n" -le "$runs" ]; do
			run_job "$job" "$n"
			n=$((n + 1))
		done
	done
fi
failed=0
for job in $jobs; do
	n=1
	while [ "$n" -le "$runs" ]; do
		[ "$(cat "$out/$job-$n/verdict" 2>/dev/null)" = pass ] || failed=$((failed + 1))
		n=$((n + 1))
	done
done

python3 "$top/tools/vm-soak-figures.py" "$out" $jobs
echo "vm-soak: $failed failed runs"
[ "$failed" = 0 ]
