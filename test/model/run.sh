#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Verify a SPIN model exhaustively, or check that a broken variant fails.
# usage: run.sh pass|fail MODEL.pml [SPIN -D options...]
# pass: exit 0 only if pan reports "errors: 0" and a complete search.
# fail: exit 0 only if pan finds an assertion violation or invalid end state.
set -eu
mode=$1
model=$2
shift 2
command -v spin >/dev/null || { echo "run.sh: spin missing: tools/install-deps.sh model" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmuvirt-model.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$model" "$dir/model.pml"
cd "$dir"
spin -a "$@" model.pml >spin.log
cc -O2 -w -DSAFETY -DCOLLAPSE -o pan pan.c
./pan -m1000000 >pan.log 2>&1 || true
grep -E "errors:|states, stored|transitions|elapsed time|^pan:" pan.log || true
case "$mode" in
pass)
	grep -q "errors: 0" pan.log || { cat pan.log; exit 1; }
	if grep -q "max search depth too small\|Search not completed" pan.log; then
		echo "run.sh: search incomplete" >&2
		exit 1
	fi
	;;
fail)
	if grep -q "errors: 0" pan.log; then
		echo "run.sh: broken variant ($*) passed: the model cannot fail" >&2
		exit 1
	fi
	grep -E "assertion violated|invalid end state" pan.log
	;;
*)
	echo "usage: run.sh pass|fail MODEL.pml [-Dname...]" >&2
	exit 2
	;;
esac
