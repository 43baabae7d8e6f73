# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Results of PAPI's run_tests.sh: one "NAME RESULT" line per test.  Each
# "Running NAME:" starts a test's record; its result is the first PASSED,
# FAILED, SKIPPED or TIMEOUT in it.  A record without one (a crash) is
# NORESULT.
function flush() {
	if (name != "")
		print name, (res == "" ? "NORESULT" : res)
	name = ""; res = ""
}
/^PAPI-RUN-TESTS-END/ { flush(); next }
{
	line = $0
	while (match(line, /Running [^ :]+:/)) {
		pre = substr(line, 1, RSTART - 1)
		m = substr(line, RSTART, RLENGTH)
		line = substr(line, RSTART + RLENGTH)
		if (res == "" && match(pre, /PASSED|FAILED|SKIPPED|TIMEOUT/))
			res = substr(pre, RSTART, RLENGTH)
		flush()
		sub(/^Running /, "", m); sub(/:$/, "", m)
		name = m
	}
	if (name != "" && res == "" && match(line, /PASSED|FAILED|SKIPPED|TIMEOUT/))
		res = substr(line, RSTART, RLENGTH)
}
