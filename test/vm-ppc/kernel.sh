#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Debian bookworm's ppc64el kernel and its headers, and pmuvirt.ko
# cross-built against them, in a build directory; nothing is installed.
#
# Fetched with a private apt state (tools/apt-private.sh, ppc64el native,
# amd64 foreign) and unpacked with dpkg-deb -x into OUT/cache/root-VERSION:
#   linux-image-K            only /boot/vmlinux-K is used (QEMU -kernel)
#   linux-headers-K, linux-headers-6.1.0-NN-common
#   linux-kbuild-6.1:amd64   the headers' scripts/ and tools/ are relative
#                            symlinks into it, so kbuild runs host binaries
# K is the version the linux-headers-powerpc64le metapackage depends on.
# The headers' Makefile includes the -common one by its absolute path
# under /usr/src; it is pointed at the unpacked copy.
#
# Sourced by test/vm-ppc/run.sh:
#   vm_ppc_kernel SRC OUT FAIL  sets kver, hver, vmlinux, kdir
#   vm_ppc_busybox OUT FAIL     after vm_ppc_kernel: sets busybox (busybox-static:ppc64el)
# The apt lists are fetched and the versions chosen once (OUT/cache/versions);
# remove OUT/cache to take newer packages.
#   vm_ppc_module SRC OUT       builds OUT/module/pmuvirt.ko (log OUT/module.log)
# Run: kernel.sh SOURCE_DIR BUILD_DIR   fetches, then builds the module.

vm_ppc_kernel() {
	_out=$2
	_fail=$3
	. "$1/tools/apt-private.sh"
	apt_private_setup "$_out/cache/apt" ppc64el,amd64 ||
		"$_fail" "private apt state for ppc64el (see $_out/cache/apt/update.log)"
	# resolved once per apt state: a run with everything cached reads no
	# package list (apt-cache parses all of them, slow on a busy machine)
	_vf=$_out/cache/versions
	if [ ! -f "$_vf" ] || [ "$_out/cache/apt/updated" -nt "$_vf" ]; then
		kver=$(apt_private apt-cache depends linux-headers-powerpc64le 2>/dev/null |
			sed -n 's/^ *Depends: linux-headers-\(6\.1\.[^ ]*-powerpc64le\)$/\1/p' | head -n 1)
		[ -n "$kver" ] || "$_fail" "no linux-headers-powerpc64le in the configured archives"
		hver=$(apt_private apt-cache show "linux-headers-$kver" 2>/dev/null |
			sed -n 's/^Version: //p' | sort -V | tail -n 1)
		[ -n "$hver" ] || "$_fail" "no version of linux-headers-$kver"
		_bver=$(apt_private apt-cache show busybox-static 2>/dev/null |
			sed -n 's/^Version: //p' | sort -V | tail -n 1)
		[ -n "$_bver" ] || "$_fail" "no busybox-static for ppc64el in the configured archives"
		printf 'kver=%s\nhver=%s\n_bver=%s\n' "$kver" "$hver" "$_bver" >"$_vf.tmp"
		mv "$_vf.tmp" "$_vf"
	fi
	. "$_vf"
	_root=$_out/cache/root-$kver-$hver
	vmlinux=$_root/boot/vmlinux-$kver
	kdir=$_root/usr/src/linux-headers-$kver
	[ -f "$vmlinux" ] && [ -f "$kdir/Makefile" ] && return 0
	_common=linux-headers-${kver%-powerpc64le}-common
	rm -rf "$_out/cache/dl" "$_root.tmp"
	mkdir -p "$_out/cache/dl"
	(cd "$_out/cache/dl" && apt_private apt-get download "linux-image-$kver=$hver" \
		"linux-headers-$kver=$hver" "$_common=$hver" "linux-kbuild-6.1:amd64=$hver") \
		>"$_out/cache/download.log" 2>&1 ||
		"$_fail" "cannot download the ppc64el kernel packages $hver (see $_out/cache/download.log)"
	for _d in "$_out"/cache/dl/*.deb; do
		dpkg-deb -x "$_d" "$_root.tmp" || "$_fail" "cannot unpack $_d"
	done
	rm -rf "$_root.tmp/lib/modules" "$_root.tmp/usr/share/doc"
	_mk=$_root.tmp/usr/src/linux-headers-$kver/Makefile
	grep -q "^include /usr/src/$_common/Makefile" "$_mk" ||
		"$_fail" "$_mk does not include /usr/src/$_common/Makefile"
	sed -i "s|^include /usr/src/$_common/|include $_root/usr/src/$_common/|" "$_mk"
	[ -x "$_root.tmp/usr/lib/linux-kbuild-6.1/scripts/basic/fixdep" ] ||
		"$_fail" "linux-kbuild-6.1:amd64 has no scripts/basic/fixdep"
	mv "$_root.tmp" "$_root"
	rm -rf "$_out/cache/dl"
}

vm_ppc_busybox() {
	apt_private_setup "$1/cache/apt" ppc64el,amd64 || "$2" "private apt state for ppc64el"
	. "$1/cache/versions"
	_bdir=$1/cache/busybox-$(echo "$_bver" | tr ':' '_')
	busybox=$_bdir/bin/busybox
	[ -x "$busybox" ] && return 0
	rm -rf "$1/cache/dl" "$_bdir.tmp"
	mkdir -p "$1/cache/dl"
	(cd "$1/cache/dl" && apt_private apt-get download "busybox-static=$_bver") \
		>"$1/cache/download.log" 2>&1 ||
		"$2" "cannot download busybox-static:ppc64el (see $1/cache/download.log)"
	dpkg-deb -x "$1"/cache/dl/busybox-static_*.deb "$_bdir.tmp" || "$2" "cannot unpack busybox-static"
	mv "$_bdir.tmp" "$_bdir"
	rm -rf "$1/cache/dl"
}

vm_ppc_module() {
	make -s -C "$1/src/glue/linux" BUILD="$2/module" KDIR="$kdir" ARCH=powerpc \
		CROSS_COMPILE=powerpc64le-linux-gnu- >"$2/module.log" 2>&1
}

case $0 in
*kernel.sh)
	set -eu
	_src=$(cd "$1" && pwd)
	mkdir -p "$2"
	_o=$(cd "$2" && pwd)
	_die() { echo "vm-ppc: $*" >&2; exit 1; }
	vm_ppc_kernel "$_src" "$_o" _die
	echo "vm-ppc: kernel $kver ($hver): $vmlinux"
	vm_ppc_module "$_src" "$_o" || { cat "$_o/module.log"; _die "module build"; }
	echo "vm-ppc: built $_o/module/pmuvirt.ko"
	;;
esac
