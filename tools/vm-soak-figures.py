# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
"""Summarise the error figures of the VM jobs' console logs.

usage: python3 tools/vm-soak-figures.py SOAK_DIR JOB...

SOAK_DIR holds one folder per run, JOB-N, with that run's console logs
(tools/vm-soak.sh makes them).  Each figure a check prints as a relative
error is collected under the check's name; the table gives min, median
and max over all runs (and all threads or VCPUs of a run).  The stock
set (vm-xen-stock) prints exact counts, which the boot itself checks, and
no figure.
"""
import glob
import os
import re
import statistics
import sys

# (job, pattern, name): the first group is the signed error in percent.
# A name may use groups of the pattern by number, as {1}.
FIGURES = [
    ("vm-linux", r"^vm: (accuracy|inherit|migrate) thread \d+: own work .*\(error ([-+0-9.]+)%\)",
     "{mode} {0}: virtual TSC vs own work"),
    ("vm-linux", r"^vm: fork: child .*\(error ([-+0-9.]+)%\)", "{mode} fork: child's virtual TSC"),
    ("vm-linux", r"^vm: pmuvirt-stat: \S+ tsc \S+ \(error ([-+0-9.]+)%\)",
     "icount pmuvirt-stat: thread's tsc"),
    ("vm-linux", r"^vm: (accuracy|inherit|migrate) thread \d+: virtual TSC .*schedstat \d+ ns \(([-+0-9.]+)%\)",
     "{mode} {0}: virtual TSC vs schedstat (reported, not checked)"),
    ("vm-linux", r"^vm: (accuracy|inherit): \d+ threads on CPU 0 counted .*\(([-+0-9.]+)%\)",
     "{mode} {0}: sum of virtual TSCs, % of the span"),
    ("vm-linux", r"^vm: imode thread \d+: .*\(error ([-+0-9.]+)%\)", "icount imode: instructions"),
    ("vm-linux", r"^vm: profile: thread \S+ \(spin-\w+\): .* ratio ([0-9.]+) \(error",
     "{mode} pmuvirt-record: thread's split vs 3:1", 100.0 / 3, -100.0),
    ("vm-linux", r"^vm: chain: .* ratio ([0-9.]+) \(error",
     "{mode} pmuvirt-record -g: callers' split vs 3:1", 100.0 / 3, -100.0),
    ("vm-xen", r"domu-a: vm: profile: thread \S+ \(spin-\w+\): .* ratio ([0-9.]+) \(error",
     "{mode}: PV domU pmuvirt-record split vs 3:1", 100.0 / 3, -100.0),
    ("vm-xen", r"PMUVIRT-XEN-VTSC .*err=([-+0-9.]+)%", "real: VCPU virtual TSC vs work"),
    ("vm-xen", r"PMUVIRT-XEN-GUEST-VTSC .*err=([-+0-9.]+)%",
     "{mode}: guest thread virtual TSC vs work (reported)"),
    ("vm-xen", r"PMUVIRT-XEN-GUEST-OWN .*loop/ran=([-+0-9.]+)%",
     "{mode}: guest thread virtual TSC vs own running time"),
    ("vm-xen", r"PMUVIRT-XEN-GUEST-OWN .*largest growth across one (\d+)",
     "{mode}: guest thread, largest growth across a switch (ticks)"),
    ("vm-xen", r"PMUVIRT-SAVE-OWN .*loop/ran=([-+0-9.]+)%",
     "{mode}: saved domain's thread TSC vs own running time"),
    ("vm-xen", r"PMUVIRT-SAVE-THREAD .*instructions=\d+ err=([-+0-9.]+)%",
     "{mode}: saved domain's thread instructions vs work"),
    ("vm-xen", r"PMUVIRT-XEN-EMU vcpu=\d+ .*instructions=\d+ \(([-+0-9.]+)%\)",
     "emulated: VCPU instructions vs work"),
    ("vm-xen", r"PMUVIRT-XEN-EMU vcpu=\d+ .*tsc=\d+ \(([-+0-9.]+)%\)", "emulated: VCPU TSC vs work"),
    ("vm-xen", r"^vm: imode thread \d+: .*\(error ([-+0-9.]+)%\)", "emulated: guest imode instructions"),
    # Stock guests' perf_event_open and Debian's perf: err is a fraction,
    # the record's ratio of the two functions' samples should be 3.
    ("vm-xen", r"([\w-]+): PMUVIRT-STOCK-PERF (.+?) \d+ work \d+ err ([-+0-9.]+)$",
     "{mode} {0}: {1}", 100.0, 0.0),
    ("vm-xen", r"([\w-]+): PMUVIRT-STOCK-PERF-SPLIT (.+?) :u .*\(u\+k\)/all-1 ([-+0-9.]+)$",
     "{mode} {0}: {1} (:u + :k) vs all", 100.0, 0.0),
    ("vm-xen", r"([\w-]+): PMUVIRT-STOCK-PERF record .* ratio ([0-9.]+) ",
     "{mode} {0}: perf record split vs 3:1", 100.0 / 3, -100.0),
]


def collect(soak, job):
    figures = {}
    runs = sorted(glob.glob(os.path.join(soak, job + "-[0-9]*")))
    for run in runs:
        for log in sorted(glob.glob(os.path.join(run, "console-*.log"))):
            mode = os.path.basename(log)[len("console-"):-len(".log")]
            with open(log, "rb") as f:
                text = f.read().decode("utf-8", "replace").replace("\r", "")
            for line in text.splitlines():
                line = re.sub(r"^\(XEN\) ", "", line)
                for fjob, pattern, name, *scale in FIGURES:
                    if fjob != job:
                        continue
                    m = re.search(pattern, line)
                    if not m:
                        continue
                    groups = m.groups()
                    key = name.format(*groups[:-1], mode=mode)
                    value = float(groups[-1])
                    if scale:
                        value = value * scale[0] + scale[1]
                    figures.setdefault(key, []).append(value)
    return len(runs), figures


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    soak = sys.argv[1]
    for job in sys.argv[2:]:
        nruns, figures = collect(soak, job)
        print("%s: %d runs" % (job, nruns))
        print("  %-58s %6s %9s %9s %9s" % ("figure (error, %)", "n", "min", "median", "max"))
        for key in sorted(figures):
            v = figures[key]
            print("  %-58s %6d %+9.3f %+9.3f %+9.3f" % (key, len(v), min(v), statistics.median(v), max(v)))


if __name__ == "__main__":
    main()
