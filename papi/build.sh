#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Fetch Debian's PAPI source, add the pmuvirt component and the core patch,
# and build and install a PAPI whose component 0 (the CPU component) is
# pmuvirt.  Tools and tests link libpapi.so (PREFIX/lib).
#
# usage: papi/build.sh [BUILD_DIR [PREFIX]]
#   BUILD_DIR defaults to <source>/build-papi; PREFIX to BUILD_DIR/install.
#   The Debian source is fetched once into BUILD_DIR/cache; the tree in
#   BUILD_DIR/tree is rebuilt only when the component, the patch or this
#   script change.  Nothing in the source tree is modified.
# Prints the install prefix last.  After the install, PREFIX/share/papi
# holds PAPI's run_tests.sh with the ctests, ftests and validation tests.
#
# Environment:
#   PMUVIRT_PAPI_VERSION  Debian source version (default: the newest apt knows)
#   PMUVIRT_PAPI_JOBS     parallel make jobs (default: number of CPUs)
set -eu

srcroot=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$srcroot/build-papi}
mkdir -p "$build"
build=$(cd "$build" && pwd)
prefix=${2:-$build/install}
cache=$build/cache
jobs=${PMUVIRT_PAPI_JOBS:-$(nproc 2>/dev/null || echo 2)}

log() { echo "papi-build: $*" >&2; }
die() { echo "papi-build: $*" >&2; exit 1; }

for t in apt-get dpkg-source make gcc patch; do
	command -v "$t" >/dev/null 2>&1 || die "missing $t (tools/install-deps.sh papi)"
done

# A private apt state with deb-src entries derived from the system's own
# deb822 sources; the system's apt configuration is left alone.
apt_dir=$cache/apt
apt_opts="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$apt_dir/sources.list.d
 -o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir/cache
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"

fetch_source() {
	sys=/etc/apt/sources.list.d/debian.sources
	[ -r "$sys" ] || die "$sys not found: cannot derive a deb-src entry"
	mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	sed 's/^Types:.*/Types: deb-src/' "$sys" >"$apt_dir/sources.list.d/pmuvirt-src.sources"
	if [ ! -e "$apt_dir/updated" ]; then
		apt-get -q $apt_opts update >/dev/null || die "apt-get update (deb-src) failed"
		touch "$apt_dir/updated"
	fi
	v=${PMUVIRT_PAPI_VERSION:-$(apt-cache $apt_opts showsrc papi 2>/dev/null |
		sed -n 's/^Version: //p' | sort -rV | head -1)}
	[ -n "$v" ] || die "no papi source package known to apt"
	rm -rf "$cache/dl"
	mkdir -p "$cache/dl"
	log "fetching papi source $v"
	(cd "$cache/dl" && apt-get -q $apt_opts source --download-only "papi=$v" >/dev/null 2>&1) ||
		die "could not fetch papi $v"
	echo "$v"
}

if [ ! -e "$cache/papi-src.stamp" ]; then
	ver=$(fetch_source)
	dsc=$(ls "$cache"/dl/papi_"$(echo "$ver" | sed 's/^[0-9]*://')".dsc)
	rm -rf "$cache/papi-src" "$cache/papi-src.tmp"
	dpkg-source --no-check -x "$dsc" "$cache/papi-src.tmp" >/dev/null
	mv "$cache/papi-src.tmp" "$cache/papi-src"
	echo "$ver" >"$cache/papi-src.stamp"
fi

# What the built tree depends on: rebuild when any of it changes.
inputs="$srcroot/papi/pmuvirt.c $srcroot/papi/Rules.pmuvirt $srcroot/papi/papi_events.csv
 $srcroot/papi/papi-init-cpu-component.patch $srcroot/papi/build.sh
 $srcroot/tools/pmuvirt-stat/libpmuvirt-user.c $srcroot/tools/pmuvirt-stat/libpmuvirt-user.h
 $srcroot/include/pmuvirt/abi.h $srcroot/include/pmuvirt/linux.h
 $srcroot/include/pmuvirt/types.h $srcroot/include/pmuvirt/user.h"
sum=$( (cat "$cache/papi-src.stamp"; echo "$prefix"; cat $inputs) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$build/tree.stamp" 2>/dev/null)" = "$sum" ] && [ -x "$prefix/bin/papi_avail" ]; then
	log "PAPI with pmuvirt is up to date in $prefix"
	echo "$prefix"
	exit 0
fi

log "preparing the tree"
rm -rf "$build/tree" "$build/tree.stamp"
cp -a "$cache/papi-src" "$build/tree"
s=$build/tree/src
patch -s -d "$build/tree" -p1 <"$srcroot/papi/papi-init-cpu-component.patch"
grep -v '^# SPDX' "$srcroot/papi/papi_events.csv" >>"$s/papi_events.csv"
c=$s/components/pmuvirt
mkdir -p "$c/include/pmuvirt"
cp "$srcroot/papi/pmuvirt.c" "$srcroot/papi/Rules.pmuvirt" "$c/"
cp "$srcroot/tools/pmuvirt-stat/libpmuvirt-user.c" "$srcroot/tools/pmuvirt-stat/libpmuvirt-user.h" "$c/"
cp "$srcroot"/include/pmuvirt/abi.h "$srcroot"/include/pmuvirt/linux.h \
	"$srcroot"/include/pmuvirt/types.h "$srcroot"/include/pmuvirt/user.h "$c/include/pmuvirt/"

# linux-generic, not perf_event: no libpfm4, and pmuvirt is component 0.
log "configuring (log in $build/configure.log)"
tests="ctests"
command -v gfortran >/dev/null 2>&1 && tests="ctests ftests"
(cd "$s" && ac_cv_file__proc_sys_kernel_perf_event_paranoid=no ./configure \
	--prefix="$prefix" --with-components=pmuvirt --with-tests="$tests" \
	--with-static-lib=yes --with-shared-lib=yes --with-shlib-tools) \
	>"$build/configure.log" 2>&1 || { tail -20 "$build/configure.log"; die "configure failed"; }
grep -q '^CPUCOMPONENT_NAME = linux-generic' "$s/Makefile" ||
	die "configure did not choose the linux-generic platform"
log "building (log in $build/make.log)"
make -C "$s" -j"$jobs" >"$build/make.log" 2>&1 || { tail -30 "$build/make.log"; die "build failed"; }
rm -rf "$prefix"
make -C "$s" install-all >"$build/install.log" 2>&1 || { tail -20 "$build/install.log"; die "install failed"; }
echo "$sum" >"$build/tree.stamp"
echo "$prefix"
