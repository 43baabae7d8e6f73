#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Fetch Debian's PAPI source, add the pmuvirt component and the core patch,
# and build and install a PAPI whose component 0 (the CPU component) is
# pmuvirt.  Tools and tests link libpapi.so (PREFIX/lib).
# With PMUVIRT_PAPI_CONFIG=stock: Debian's PAPI as Debian builds it
# (perf_event, no pmuvirt), whose tests run on Debian's binary libpapi.
#
# usage: papi/build.sh [BUILD_DIR [PREFIX]]
#   BUILD_DIR defaults to <source>/build-papi; PREFIX to BUILD_DIR/install.
#   The Debian source is fetched once into BUILD_DIR/cache.  The tree in
#   BUILD_DIR/tree is built again when a patch, the presets or this script
#   change, and only libpapi.so when the component's sources change.
#   Nothing in the source tree is modified.
# Prints the install prefix last.  After the install, PREFIX/share/papi
# holds PAPI's run_tests.sh with the ctests, ftests and validation tests.
#
# Stock mode (papi/build-stock.sh): Debian's source as Debian ships it
# (no patch, component or preset of pmuvirt), configured and built as its
# debian/rules does and installed into PREFIX; then Debian's binary
# libpapi, libsde and libpfm (apt-get download of the versions matching
# the source, kept in BUILD_DIR/cache/debs) replace the local libraries in
# PREFIX/lib, and PREFIX/STOCK-LIBPAPI names the packages used.  Run the
# tools and tests with LD_LIBRARY_PATH=PREFIX/lib.  A BUILD_DIR holds one
# mode: give each mode its own (the other mode refuses it).
#
# Environment:
#   PMUVIRT_PAPI_CONFIG   pmuvirt (default) or stock
#   PMUVIRT_PAPI_VERSION  Debian source version (default: the newest apt knows)
#   PMUVIRT_PAPI_JOBS     parallel make jobs (default: number of CPUs)
set -eu

srcroot=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$srcroot/build-papi}
mkdir -p "$build"
build=$(cd "$build" && pwd)
prefix=${2:-$build/install}
case $prefix in /*) ;; *) prefix=$PWD/$prefix ;; esac
cache=$build/cache
jobs=${PMUVIRT_PAPI_JOBS:-$(nproc 2>/dev/null || echo 2)}

log() { echo "papi-build: $*" >&2; }
die() { echo "papi-build: $*" >&2; exit 1; }

config=${PMUVIRT_PAPI_CONFIG:-pmuvirt}
case $config in
pmuvirt|stock) ;;
*) die "PMUVIRT_PAPI_CONFIG is '$config': pmuvirt or stock" ;;
esac

for t in apt-get dpkg-source make gcc patch; do
	command -v "$t" >/dev/null 2>&1 || die "missing $t (tools/install-deps.sh papi)"
done

# One mode per BUILD_DIR.  A tree without a mode file was built before
# there were modes: pmuvirt.
built=$(cat "$build/papi-config" 2>/dev/null || :)
if [ -z "$built" ] && [ -e "$build/tree" ]; then
	built=pmuvirt
fi
if [ -n "$built" ] && [ "$built" != "$config" ]; then
	die "$build holds a PMUVIRT_PAPI_CONFIG=$built build; give the $config build a BUILD_DIR of its own"
fi
echo "$config" >"$build/papi-config"

# Debian's source, through a private apt state whose deb-src entries are
# derived from the system's own sources (its configuration is left alone).
. "$srcroot/tools/apt-private.sh"
# shellcheck disable=SC2086
apt_private_source "$cache/apt" papi "$cache/papi-src" ${PMUVIRT_PAPI_VERSION:-} || die "no papi source"

if [ "$config" = stock ]; then
	. "$srcroot/papi/build-stock.sh"
	exit 0
fi

# The tree (PAPI's source, the patches, the presets, the build fragment,
# this script) is configured and built whole when one of them changes; the
# component's own sources only rebuild libpapi.so, which the installed
# tools and tests load at run time.
tree_inputs="$srcroot/papi/Rules.pmuvirt $srcroot/papi/papi_events.csv
 $srcroot/papi/*.patch $srcroot/papi/build.sh"
comp_files="$srcroot/papi/pmuvirt.c
 $srcroot/lib/user/libpmuvirt-user.c $srcroot/lib/user/libpmuvirt-user.h"
comp_headers="$srcroot/include/pmuvirt/abi.h $srcroot/include/pmuvirt/linux.h
 $srcroot/include/pmuvirt/types.h $srcroot/include/pmuvirt/user.h"
# shellcheck disable=SC2086
tree_sum=$( (cat "$cache/papi-src.stamp"; echo "$prefix"; cat $tree_inputs) | sha256sum | cut -d' ' -f1)
# shellcheck disable=SC2086
comp_sum=$(cat $comp_files $comp_headers | sha256sum | cut -d' ' -f1)
s=$build/tree/src
c=$s/components/pmuvirt
lib=libpapi.so.7.0.0.0

# The component's files into the tree.
copy_component() {
	mkdir -p "$c/include/pmuvirt"
	# shellcheck disable=SC2086
	cp $comp_files "$c/"
	# shellcheck disable=SC2086
	cp $comp_headers "$c/include/pmuvirt/"
}

if [ "$(cat "$build/tree.stamp" 2>/dev/null)" = "$tree_sum" ] && [ -x "$prefix/bin/papi_avail" ] &&
	[ -f "$prefix/lib/$lib" ]; then
	if [ "$(cat "$build/component.stamp" 2>/dev/null)" = "$comp_sum" ]; then
		log "PAPI with pmuvirt is up to date in $prefix"
		echo "$prefix"
		exit 0
	fi
	log "rebuilding libpapi.so with the changed component (log in $build/make.log)"
	rm -f "$build/component.stamp"
	copy_component
	rm -f "$s/$lib"		# it depends on PAPI's headers, not on pmuvirt's
	make -C "$s" "$lib" >"$build/make.log" 2>&1 || { tail -30 "$build/make.log"; die "build failed"; }
	cp "$s/$lib" "$prefix/lib/$lib.new"
	mv "$prefix/lib/$lib.new" "$prefix/lib/$lib"
	echo "$comp_sum" >"$build/component.stamp"
	echo "$prefix"
	exit 0
fi

log "preparing the tree"
rm -rf "$build/tree" "$build/tree.stamp" "$build/component.stamp"
cp -a "$cache/papi-src" "$build/tree"
for p in "$srcroot"/papi/*.patch; do
	patch -s -d "$build/tree" -p1 <"$p" || die "$(basename "$p") does not apply"
done
grep -v '^# SPDX' "$srcroot/papi/papi_events.csv" >>"$s/papi_events.csv"
copy_component
cp "$srcroot/papi/Rules.pmuvirt" "$c/"

# linux-generic, not perf_event: no libpfm4, and pmuvirt is component 0.
# Only what the tools and the tests use: the shared library (no static
# one, no libsde), the utilities and the tests.
log "configuring (log in $build/configure.log)"
tests="ctests"
command -v gfortran >/dev/null 2>&1 && tests="ctests ftests"
(cd "$s" && ac_cv_file__proc_sys_kernel_perf_event_paranoid=no ./configure \
	--prefix="$prefix" --with-components=pmuvirt --with-tests="$tests" \
	--with-static-lib=no --with-shared-lib=yes --with-shlib-tools) \
	>"$build/configure.log" 2>&1 || { tail -20 "$build/configure.log"; die "configure failed"; }
grep -q '^CPUCOMPONENT_NAME = linux-generic' "$s/Makefile" ||
	die "configure did not choose the linux-generic platform"
log "building (log in $build/make.log)"
make -C "$s" -j"$jobs" "$lib" utils tests >"$build/make.log" 2>&1 ||
	{ tail -30 "$build/make.log"; die "build failed"; }
# A prefix inside BUILD_DIR is replaced whole; any other (/usr/local, say)
# is installed over, never emptied.
case $prefix in
"$build"/*) rm -rf "$prefix" ;;
esac
make -C "$s" install-all >"$build/install.log" 2>&1 || { tail -20 "$build/install.log"; die "install failed"; }
echo "$tree_sum" >"$build/tree.stamp"
echo "$comp_sum" >"$build/component.stamp"
echo "$prefix"
