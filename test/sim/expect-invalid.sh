#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# expect-invalid.sh SIM FILE: FILE must be rejected with exit 1, an empty
# stdout and "line N:" on stderr, N from the file's "# expect-line: N".
sim=$1
file=$2
want=$(sed -n 's/^# expect-line: *\([0-9][0-9]*\).*/\1/p' "$file" | head -n 1)
if [ -z "$want" ]; then
	echo "$file: no '# expect-line: N' header" >&2
	exit 1
fi
tmp=${TMPDIR:-/tmp}/sim-bad.$$
${SIM_EMU:-} "$sim" run "$file" >"$tmp.out" 2>"$tmp.err"
rc=$?
out=$(cat "$tmp.out")
err=$(cat "$tmp.err")
rm -f "$tmp.out" "$tmp.err"
echo "stderr: $err"
if [ "$rc" -ne 1 ]; then
	echo "FAIL: exit status $rc, expected 1" >&2
	exit 1
fi
if [ -n "$out" ]; then
	echo "FAIL: stdout not empty: $out" >&2
	exit 1
fi
case "$err" in
*": line $want: "*) ;;
*)
	echo "FAIL: message does not name line $want" >&2
	exit 1
	;;
esac
exit 0
