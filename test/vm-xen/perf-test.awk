# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Results of Linux's `perf test`, run one test at a time by the stock
# boot's domUs (stock-init.sh): one "ID RESULT" line per test or subtest
# ("26 FAILED", "6.2 SKIPPED"), RESULT PASSED (perf's "Ok"), SKIPPED
# ("Skip ...") or FAILED ("FAILED!").  A test whose run ("PERF-TEST-RAN N
# STATUS") printed no result is "N TIMEOUT" when the time limit killed it
# (status 124 or 143), "N NORESULT" otherwise.
function result(s) {
	if (s ~ /^Ok/)
		return "PASSED"
	if (s ~ /^Skip/)
		return "SKIPPED"
	return "FAILED"
}
{
	sub(/\r$/, "")
}
/^PERF-TEST-RAN / {
	if (!seen) {
		if ($3 == 124 || $3 == 143)
			print $2, "TIMEOUT"
		else
			print $2, "NORESULT"
	}
	seen = 0
	next
}
match($0, /^ *[0-9]+(\.[0-9]+)?: /) {
	id = substr($0, RSTART, RLENGTH)
	gsub(/[ :]/, "", id)
	rest = substr($0, RSTART + RLENGTH)
	# a name that fills its column leaves no blank before the colon
	if (match(rest, /: (Ok|Skip|FAILED!)[^:]*$/)) {
		print id, result(substr(rest, RSTART + 2))
		seen = 1
	}
}
