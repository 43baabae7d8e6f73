#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Install the Debian 12 packages that a group of pmuvirt jobs needs.
# usage: tools/install-deps.sh GROUP...   (groups: base cross qemu-ppc vm-linux vm-ppc vm-xen papi fuzz model)
# As root it installs what is missing; otherwise it prints the command and fails.
set -eu

pkgs=""
for group in "$@"; do
	case "$group" in
	# pmuvirt-report: libdw; its --pprof: protobuf-c, zlib and pprof's profile.proto
	# (protoc decodes its output in the unit test)
	base)     pkgs="$pkgs build-essential cmake pkg-config libcmocka-dev valgrind python3 libdw-dev libelf-dev libprotobuf-c-dev protobuf-c-compiler golang-github-google-pprof-dev zlib1g-dev protobuf-compiler" ;;
	cross)    pkgs="$pkgs cmake gcc-powerpc64-linux-gnu gcc-powerpc64le-linux-gnu gcc-i686-linux-gnu libc6-dev-ppc64-cross libc6-dev-ppc64el-cross libc6-dev-i386-cross libc6-i386 qemu-user dpkg-dev xz-utils" ;;
	qemu-ppc) pkgs="$pkgs qemu-system-ppc gcc-powerpc64-linux-gnu binutils-powerpc64-linux-gnu dpkg-dev" ;;
	vm-linux) pkgs="$pkgs qemu-system-x86 busybox-static cpio linux-headers-amd64 kmod pkg-config libdw-dev" ;;
	# the ppc64el kernel, its headers, busybox and QEMU 10 are downloaded
	# (test/vm-ppc/kernel.sh), not installed
	vm-ppc)   pkgs="$pkgs gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross cpio dpkg-dev make" ;;
	vm-xen)   pkgs="$pkgs qemu-system-x86 busybox-static cpio flex bison python3 dpkg-dev patch xz-utils build-essential libspice-server1 libusb-1.0-0 linux-perf" ;;
	# libpfm4-dev, autoconf, automake: the stock PAPI (PMUVIRT_PAPI_CONFIG=stock) is configured as Debian does
	papi)     pkgs="$pkgs qemu-system-x86 busybox-static cpio linux-headers-amd64 kmod dpkg-dev patch build-essential gfortran libcrypt-dev libpfm4-dev autoconf automake" ;;
	fuzz)     pkgs="$pkgs clang libclang-rt-14-dev" ;;
	model)    pkgs="$pkgs spin gcc" ;;
	*) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
	esac
done

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/pmuvirt-update-stamp
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +360 2>/dev/null)" ]; then
	apt-get update -q >/dev/null
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
apt-get install -y -q --no-install-recommends $missing >/dev/null
