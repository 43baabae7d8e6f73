#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Installed as "valgrind" in the PAPI test guest: run_tests.sh runs every
# test through $VALGRIND when that is set.  This one drops valgrind's
# options and runs the test under a time limit (PAPI_TEST_LIMIT seconds of
# guest time, one second being 10^9 instructions under -icount shift=0),
# so a test that hangs is reported as TIMEOUT and the rest still run.  It
# prints the test's exit status and guest time in seconds.
while [ "${1#-}" != "$1" ]; do
	shift
done
uptime_cs() { read -r t _ </proc/uptime; echo "${t%.*}${t#*.}"; }
start=$(uptime_cs)
timeout -s KILL "${PAPI_TEST_LIMIT:-5}" "$@"
rc=$?
t=$(($(uptime_cs) - start))
t=$((t / 100)).$((t / 10 % 10))$((t % 10))
if [ $rc = 137 ]; then
	echo " TIMEOUT after ${t} s"
else
	echo " [exit $rc, ${t} s]"
fi
