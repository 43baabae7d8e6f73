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

# Debian's source, through a private apt state whose deb-src entries are
# derived from the system's own sources (its configuration is left alone).
. "$srcroot/tools/apt-private.sh"
# shellcheck disable=SC2086
apt_private_source "$cache/apt" papi "$cache/papi-src" ${PMUVIRT_PAPI_VERSION:-} || die "no papi source"

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
