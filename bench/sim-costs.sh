#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Marginal cost of one switch in the two-level simulator, from its JSON
# stats: a scenario with 2N switches minus the same with N, divided by N.
#   VCPU switches:   two domains' VCPUs time-sliced on one PCPU, unchanged controls
#                    (three counters each; vcpu4: four each; vcpu6to4: six and four)
#   thread switches: two threads with the same counters on one VCPU
#   thread switches, differing controls: two threads with different counters
# usage: bench/sim-costs.sh BUILD_DIR [MODEL]
set -eu
build=${1:-build}
model=${2:-intel-v4}
sim="$build/tools/sim/pmuvirt-sim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# repeat N TEXT: TEXT (two switches) for N switches
repeat() {
	i=0
	while [ $i -lt "$1" ]; do
		printf '%b' "$2"
		i=$((i + 2))
	done
}

# $1 kind, $2 switches
scenario() {
	printf 'pmu %s\npcpus 1\nvcpus a 2\nvcpus b 1\n' "$model"
	case "$1" in
	vcpusame)
		printf 'thread a.t instructions cycles branches\nthread a.u instructions cycles branches\n'
		printf 'schedule 0 a.1\nswitch a.1 u\nschedule 0 a.0\nswitch a.0 t\n'
		repeat "$2" 'exec a.0 instructions=100\nschedule 0 a.1\nexec a.1 instructions=100\nschedule 0 a.0\n' ;;
	vcpu|vcpu4|vcpu6to4)
		case "$1" in
		vcpu) a='instructions cycles branches'; b=$a ;;
		vcpu4) a='instructions cycles branches instructions'; b=$a ;;
		vcpu6to4) a='instructions cycles branches instructions'; b="$a cycles instructions" ;;
		esac
		printf 'thread a.t %s\nthread b.t %s\n' "$a" "$b"
		printf 'schedule 0 b.0\nswitch b.0 t\nschedule 0 a.0\nswitch a.0 t\n'
		repeat "$2" 'exec a.0 instructions=100\nschedule 0 b.0\nexec b.0 instructions=100\nschedule 0 a.0\n' ;;
	thread|threaddiff)
		printf 'thread a.x instructions cycles branches\n'
		if [ "$1" = thread ]; then printf 'thread a.y instructions cycles branches\n'
		else printf 'thread a.y instructions cycles branch-misses\n'; fi
		printf 'schedule 0 a.0\nswitch a.0 x\n'
		repeat "$2" 'exec a.0 instructions=100\nswitch a.0 y\nexec a.0 instructions=100\nswitch a.0 x\n' ;;
	esac
}

stat() { python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['stats']; print(s['$2'])" "$1"; }

for kind in vcpusame vcpu vcpu4 vcpu6to4 thread threaddiff; do
	scenario $kind 100 > "$tmp/n.scn"
	scenario $kind 200 > "$tmp/2n.scn"
	if ! "$sim" run "$tmp/n.scn" --json > "$tmp/n.json" 2>"$tmp/err"; then
		echo "$model $kind: $(cat "$tmp/err")"	# six counters do not fit on every model
		continue
	fi
	"$sim" run "$tmp/2n.scn" --json > "$tmp/2n.json"
	line="$kind:"
	for f in msr_reads msr_writes hypercalls; do
		a=$(stat "$tmp/n.json" $f); b=$(stat "$tmp/2n.json" $f)
		line="$line $f/switch=$(python3 -c "print(round(($b - $a) / 100, 2))")"
	done
	echo "$model $line"
done
