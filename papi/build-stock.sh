# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by papi/build.sh for PMUVIRT_PAPI_CONFIG=stock, with the source
# fetched into $cache/papi-src: Debian's PAPI configured as debian/rules
# configures it, built and installed into $prefix, then Debian's binary
# libpapi (and libsde, libpfm) in place of the local libraries, so that
# PAPI's tests run on the library Debian ships.

for t in autoreconf aclocal dpkg-deb dpkg-buildflags dpkg-architecture readelf ldd cmp; do
	command -v "$t" >/dev/null 2>&1 || die "missing $t (tools/install-deps.sh papi)"
done
[ -f /usr/include/perfmon/pfmlib.h ] || die "missing libpfm4-dev (tools/install-deps.sh papi)"

ver=$apt_source_version
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# libpapi's package is named after debian/rules' SOVERSION.
sov=$(sed -n 's/^SOVERSION[[:space:]]*=[[:space:]]*//p' "$cache/papi-src/debian/rules")
[ -n "$sov" ] || die "no SOVERSION in debian/rules"
s=$build/tree/src
stamp_sum=$( (echo "$ver"; echo "$prefix"; cat "$srcroot/papi/build.sh" "$srcroot/papi/build-stock.sh") |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$build/stock.stamp" 2>/dev/null)" = "$stamp_sum" ] && [ -f "$prefix/STOCK-LIBPAPI" ] &&
	[ -x "$prefix/bin/papi_avail" ]; then
	log "stock PAPI on Debian's libpapi$sov is up to date in $prefix"
	echo "$prefix"
	exit 0
fi

# Debian's binary packages of the same version as the source (libpfm4:
# the one apt would install), before the build, so a missing one fails
# early.  apt-get download uses the system's apt state.
debs=$cache/debs
if [ "$(head -1 "$debs/versions" 2>/dev/null)" != "libpapi$sov $ver" ]; then
	log "downloading Debian's libpapi$sov $ver, libsde1 $ver and libpfm4 (log in $build/download.log)"
	rm -rf "$debs"
	mkdir -p "$debs/root"
	(cd "$debs" && apt-get download "libpapi$sov=$ver" "libsde1=$ver" libpfm4) >"$build/download.log" 2>&1 ||
		{ tail -5 "$build/download.log"; die "apt-get download failed (apt-get update?)"; }
	for p in "libpapi$sov" libsde1 libpfm4; do
		d=$(ls "$debs/${p}_"*.deb) || die "no $p package in $debs"
		dpkg-deb -x "$d" "$debs/root"
		echo "$p $(dpkg-deb -f "$d" Version)"
	done >"$debs/versions.new"
	mv "$debs/versions.new" "$debs/versions"
fi
deblib=$debs/root/usr/lib/$ma

log "preparing the tree (Debian's source, unchanged)"
rm -rf "$build/tree" "$build/stock.stamp"
cp -a "$cache/papi-src" "$build/tree"

# debian/rules: dh_autoreconf regenerates src/configure from the patched
# configure.in (Debian's patches drop the rpath into the build tree), then
# dh_auto_configure --sourcedirectory=src with --with-static-lib=yes
# --with-shared-lib=yes --with-shlib-tools --with-components="sde
# [rocm_smi]" --with-perf-events --with-pfm-incdir=/usr/include
# --with-pfm-libdir=/usr/lib/$MULTIARCH CC=$(CC), in dpkg-buildflags'
# environment with hardening=+all and CFLAGS += CPPFLAGS, PAPI_ROCM_ROOT
# set; dh_auto_build makes "all".  Here with PREFIX and the pmuvirt
# build's tests.
log "autoreconf (log in $build/autoreconf.log)"
(cd "$s" && autoreconf -f -i) >"$build/autoreconf.log" 2>&1 ||
	{ tail -20 "$build/autoreconf.log"; die "autoreconf failed"; }
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
eval "$(cd "$build/tree" && dpkg-buildflags --export=sh)"
CFLAGS="$CFLAGS $CPPFLAGS"
export PAPI_ROCM_ROOT=/usr PAPI_ROCMSMI_ROOT=/usr
components=sde
[ -f /usr/include/rocm_smi/rocm_smi.h ] && components="$components rocm_smi"
tests="ctests"
command -v gfortran >/dev/null 2>&1 && tests="ctests ftests"
log "configuring (log in $build/configure.log)"
(cd "$s" && ./configure --prefix="$prefix" --with-tests="$tests" \
	--with-static-lib=yes --with-shared-lib=yes --with-shlib-tools \
	--with-components="$components" --with-perf-events \
	--with-pfm-incdir=/usr/include --with-pfm-libdir="/usr/lib/$ma" CC=cc) \
	>"$build/configure.log" 2>&1 || { tail -20 "$build/configure.log"; die "configure failed"; }
grep -q '^CPUCOMPONENT_NAME = perf_event' "$s/Makefile" ||
	die "configure did not choose the perf_event component"
log "building (log in $build/make.log)"
make -C "$s" -j"$jobs" >"$build/make.log" 2>&1 || { tail -30 "$build/make.log"; die "build failed"; }

# The prefix is replaced whole: only one this script installed, or a new
# or empty one.
if [ -e "$prefix" ] && [ "$(cat "$build/stock.prefix" 2>/dev/null)" != "$prefix" ] &&
	[ ! -f "$prefix/STOCK-LIBPAPI" ] && [ -n "$(ls -A "$prefix")" ]; then
	die "$prefix is not empty and holds no stock PAPI: not replacing it"
fi
echo "$prefix" >"$build/stock.prefix"
rm -rf "$prefix"
make -C "$s" install-all >"$build/install.log" 2>&1 || { tail -20 "$build/install.log"; die "install failed"; }
# The sde tests' libraries are installed beside them, where run_tests.sh
# does not look (components/sde/tests/lib in its LD_LIBRARY_PATH).
ln -s . "$prefix/share/papi/components/sde/tests/lib"

# Debian's shared objects in place of the local ones, SONAME for SONAME.
soname() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
pl=$prefix/lib
rm -f "$pl"/*.a
for f in "$deblib"/libpapi.so.*.*.* "$deblib"/libsde.so.*.* "$deblib"/libpfm.so.*.*; do
	[ -f "$f" ] && [ ! -L "$f" ] || die "no $(basename "$f") in Debian's packages"
	n=$(soname "$f")
	[ -n "$n" ] || die "Debian's $(basename "$f") has no SONAME"
	case $n in
	libpfm.*) ;;	# the system's at build time, not installed by PAPI
	*)	l=$(readlink -f "$pl/$n" 2>/dev/null) && [ -f "$l" ] ||
			die "no $n in $pl: the local build's SONAMEs differ from Debian's"
		[ "$(soname "$l")" = "$n" ] || die "$pl/$n has SONAME $(soname "$l"), Debian's $n"
		rm -f "$l" ;;
	esac
	cp "$f" "$pl/"
	ln -sf "$(basename "$f")" "$pl/$n"
done
# The development links (libpapi.so, libsde.so) to the SONAME links.
for l in "$pl"/*.so; do
	[ -e "$l" ] && continue
	[ -L "$l" ] || die "$l is missing"
	n=$(cd "$pl" && ls "$(basename "$l")".* | head -1)
	ln -sf "$(soname "$pl/$n")" "$l"
done

# Every libpapi, libsde or libpfm that an installed program or library
# needs is Debian's file in $pl, and the dynamic linker finds it there.
debfile() {
	for f in "$deblib"/*; do
		[ -f "$f" ] && [ ! -L "$f" ] && cmp -s "$f" "$1" && return 0
	done
	return 1
}
dyn=$(find "$prefix" -type f -perm -u+x -exec sh -c 'for f; do readelf -d "$f" 2>/dev/null; done' sh {} +)
echo "$dyn" | grep -q "R.*PATH.*$build" && die "installed programs have a run path into $build"
needs=$(echo "$dyn" | sed -n 's/.*(NEEDED).*\[\(lib\(papi\|sde\|pfm\)\.so[^]]*\)\]/\1/p' | sort -u)
[ -n "$needs" ] || die "no installed program needs libpapi"
for n in $needs; do
	l=$(readlink -f "$pl/$n" 2>/dev/null) && [ -f "$l" ] || die "$n, needed by the tests, is not in $pl"
	debfile "$l" || die "$pl/$n is not Debian's file"
done
for t in "$prefix/bin/papi_avail" "$prefix/share/papi/ctests/zero"; do
	r=$(LD_LIBRARY_PATH=$pl ldd "$t" | sed -n 's/^[[:space:]]*libpapi\.so[^ ]* => \([^ ]*\) .*/\1/p')
	[ -n "$r" ] && debfile "$(readlink -f "$r")" ||
		die "$t does not load Debian's libpapi (ldd: ${r:-not found})"
done

cp "$debs/versions" "$prefix/STOCK-LIBPAPI"
echo "$stamp_sum" >"$build/stock.stamp"
log "installed on Debian's $(head -1 "$debs/versions")"
echo "$prefix"
