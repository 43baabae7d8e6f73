#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# frontend.sh STUB FILE: with the stand-in engine, FILE runs, the table and
# the SVG are written and the JSON is well formed (checked with python3 when
# it is installed).
sim=$1
file=$2
tmp=${TMPDIR:-/tmp}/sim-fe.$$
trap 'rm -f "$tmp".*' EXIT
${SIM_EMU:-} "$sim" run "$file" --check >"$tmp.txt" 2>/dev/null || { echo "FAIL: table run" >&2; exit 1; }
grep -q '^result: exact' "$tmp.txt" || { echo "FAIL: no result line" >&2; exit 1; }
${SIM_EMU:-} "$sim" run "$file" --json --svg "$tmp.svg" >"$tmp.json" 2>/dev/null ||
	{ echo "FAIL: json run" >&2; exit 1; }
grep -q '</svg>' "$tmp.svg" || { echo "FAIL: no svg" >&2; exit 1; }
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"threads", "reads", "stats"}, d.keys()
assert set(d["stats"]) == {"msr_reads", "msr_writes", "hypercalls",
                           "vcpu_switches", "thread_switches"}
for name, t in d["threads"].items():
    assert "." in name and set(t) == {"counters"}
    for c in t["counters"]:
        assert set(c) == {"event", "mode", "count", "truth", "overflows"}
        assert c["mode"] in ("a", "i")
        assert c["count"] == c["truth"]
for r in d["reads"]:
    assert set(r) == {"line", "thread", "counts"}
PY
fi
exit 0
