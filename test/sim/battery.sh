#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# battery.sh SIM MODEL FIRST COUNT: generate COUNT scenarios from seeds
# FIRST.. on MODEL ("all": every model in turn) and run each with --check:
# every count, overflow and read must equal the truth.
sim=$1
model=$2
first=$3
count=$4
models=$(${SIM_EMU:-} "$sim" models) || { echo "FAIL: $sim models" >&2; exit 1; }
nr_models=$(echo "$models" | wc -l)
tmp=${TMPDIR:-/tmp}/sim-battery.$$
trap 'rm -f "$tmp".*' EXIT
# A run that hangs fails after a minute instead of stalling the suite.
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout 60"
seed=$first
last=$((first + count))
fails=0
while [ "$seed" -lt "$last" ]; do
	m=$model
	if [ "$m" = all ]; then
		set -- $models
		shift $((seed % nr_models))
		m=$1
	fi
	if ! ${SIM_EMU:-} "$sim" gen --seed "$seed" --model "$m" >"$tmp.scn"; then
		echo "FAIL: gen --seed $seed --model $m" >&2
		exit 1
	fi
	$limit ${SIM_EMU:-} "$sim" run "$tmp.scn" --json --check >"$tmp.out" 2>"$tmp.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		[ "$rc" -eq 124 ] && echo "(timed out after 60 s)" >>"$tmp.err"
		echo "FAIL: $sim gen --seed $seed --model $m | run --check: exit $rc" >&2
		head -n 20 "$tmp.err" >&2
		fails=$((fails + 1))
		[ "$fails" -ge 5 ] && exit 1
	fi
	seed=$((seed + 1))
done
[ "$fails" -eq 0 ] || exit 1
echo "$count scenarios exact on $model"
