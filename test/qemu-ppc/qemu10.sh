# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by test/qemu-ppc/run-qemu-ppc.sh and test/vm-ppc/run.sh: QEMU 10
# from Debian's bookworm-backports (it raises the performance monitor
# interrupt, which 7.2 never does), downloaded with a private apt state and
# unpacked into a directory, not installed.
#
# fetch_qemu10 SOURCE_DIR DIR
#   DIR/root/usr/bin/qemu-system-ppc64 (firmware: -L DIR/root/usr/share/qemu);
#   once per DIR.  Returns 1 on failure (DIR/*.log, DIR/apt/update.log).
fetch_qemu10() {
	. "$1/tools/apt-private.sh"
	q=$2
	[ -x "$q/root/usr/bin/qemu-system-ppc64" ] && return 0
	mkdir -p "$q/deb"
	apt_private_setup "$q/apt" "$(dpkg --print-architecture)" bookworm-backports || return 1
	ver=$(apt_private apt-cache madison qemu-system-ppc | awk -F'|' '/backports/ { gsub(/ /, "", $2); print $2; exit }')
	[ -n "$ver" ] || { echo "qemu-ppc: no qemu-system-ppc in bookworm-backports" >&2; return 1; }
	(cd "$q/deb" && apt_private apt-get download "qemu-system-ppc=$ver" "qemu-system-data=$ver") \
		>"$q/download.log" 2>&1 || return 1
	for d in "$q"/deb/*.deb; do
		dpkg-deb -x "$d" "$q/root" || return 1
	done
	[ -x "$q/root/usr/bin/qemu-system-ppc64" ]
}
