#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Installed as "valgrind" in the PAPI test guest: run_tests.sh runs every
# test through $VALGRIND when that is set.  This one drops valgrind's
# options and runs the test under a time limit (PAPI_TEST_LIMIT seconds of
# guest time, one second being 10^9 instructions under -icount shift=0),
# so a test that hangs is reported as TIMEOUT and the rest still run.
while [ "${1#-}" != "$1" ]; do
	shift
done
start=$(date +%s)
timeout -s KILL "${PAPI_TEST_LIMIT:-5}" "$@"
rc=$?
t=$(($(date +%s) - start))
if [ $rc = 137 ]; then
	echo " TIMEOUT after ${t} s"
else
	echo " [exit $rc, ${t} s]"
fi
