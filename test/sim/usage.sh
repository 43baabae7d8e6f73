#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# usage.sh SIM: usage errors exit 2 and print nothing on stdout.
sim=$1
fail=0
expect2() {
	out=$(${SIM_EMU:-} "$sim" "$@" 2>/dev/null)
	rc=$?
	if [ "$rc" -ne 2 ] || [ -n "$out" ]; then
		echo "FAIL: '$*' gave exit $rc (expected 2), stdout '$out'" >&2
		fail=1
	fi
}
expect2
expect2 frobnicate
expect2 run
expect2 run a.scn b.scn
expect2 run a.scn --bogus
expect2 run a.scn --svg
expect2 gen
expect2 gen --seed
expect2 gen --seed x
expect2 gen --seed 1 --model z80
expect2 battery --model z80 --count 1
expect2 battery --count x
${SIM_EMU:-} "$sim" run /nonexistent/file.scn >/dev/null 2>&1
rc=$?
if [ "$rc" -ne 1 ]; then
	echo "FAIL: unreadable file gave exit $rc (expected 1)" >&2
	fail=1
fi
exit $fail
