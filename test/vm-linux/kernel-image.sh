# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by the VM jobs (vm-linux, papi, vm-xen, bench/vm-compare.sh): the
# guest kernel is Debian's image of the version of the installed
# linux-headers-amd64 (the one pmuvirt.ko is built against), unpacked once
# into OUT/cache (its modules too: vm-xen's dom0 loads the Xen drivers).
#
# vm_kernel_image OUT FAIL
#   sets kver, hver and vmlinuz, or calls FAIL with a message (FAIL exits).

vm_kernel_image() {
	_out=$1
	_fail=$2
	# The kernel version of the installed headers, not of the running kernel.
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
	hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
	[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
		"$_fail" "no linux-headers-amd64 build tree"
	_img=$_out/cache/linux-image-$kver-$hver
	vmlinuz=$_img/boot/vmlinuz-$kver
	[ -f "$vmlinuz" ] && return 0
	rm -rf "$_out/cache/dl" "$_img.tmp"
	mkdir -p "$_out/cache/dl"
	(cd "$_out/cache/dl" && apt-get download -q "linux-image-$kver=$hver" >/dev/null 2>&1) ||
		(cd "$_out/cache/dl" && apt-get download -q "linux-image-$kver" >/dev/null 2>&1) ||
		"$_fail" "cannot download linux-image-$kver"
	dpkg-deb -x "$_out/cache/dl"/linux-image-"$kver"_*.deb "$_img.tmp"
	mv "$_img.tmp" "$_img"
	rm -rf "$_out/cache/dl"
}
