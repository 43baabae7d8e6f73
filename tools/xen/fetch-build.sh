#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Fetch Debian's Xen source, add pmuvirt to it and build the hypervisor.
#
# usage: tools/xen/fetch-build.sh [BUILD_DIR]
#   BUILD_DIR defaults to <source>/build-xen.  Everything fetched or built
#   lives under BUILD_DIR/cache; nothing in the source tree is modified.
# Prints the path of the uncompressed hypervisor ELF (xen/xen) last.
#
# Environment:
#   PMUVIRT_XEN_VERSION  Debian source version to fetch (default: the one
#                        of the main suite, see below)
#   PMUVIRT_XEN_JOBS     parallel make jobs (default: number of CPUs)
set -eu

srcroot=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$srcroot/build-xen}
mkdir -p "$build"
build=$(cd "$build" && pwd)
cache=$build/cache
jobs=${PMUVIRT_XEN_JOBS:-$(nproc 2>/dev/null || echo 2)}

log() { echo "fetch-build: $*" >&2; }
die() { echo "fetch-build: $*" >&2; exit 1; }

for t in apt-get dpkg-source make gcc flex bison python3; do
	command -v "$t" >/dev/null 2>&1 || die "missing $t (tools/install-deps.sh vm-xen)"
done

# A private apt state with deb-src entries derived from the system's own
# deb822 sources, so the system's apt configuration is left alone.
apt_dir=$cache/apt
apt_opts="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$apt_dir/sources.list.d
 -o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir/cache
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
apt_src() { apt-get -q $apt_opts "$@"; }
apt_cache() { apt-cache $apt_opts "$@"; }

fetch_source() {
	sys=/etc/apt/sources.list.d/debian.sources
	[ -r "$sys" ] || die "$sys not found: cannot derive a deb-src entry"
	mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	sed 's/^Types:.*/Types: deb-src/' "$sys" >"$apt_dir/sources.list.d/pmuvirt-src.sources"
	if [ ! -e "$apt_dir/updated" ]; then
		apt_src update >/dev/null || die "apt-get update (deb-src) failed"
		touch "$apt_dir/updated"
	fi
	mkdir -p "$cache/dl"
	# The newest security upload may be missing from the source pool;
	# try the versions apt knows, newest first, the main suite's first.
	if [ -n "${PMUVIRT_XEN_VERSION:-}" ]; then
		versions=$PMUVIRT_XEN_VERSION
	else
		versions=$(apt_cache showsrc xen 2>/dev/null | sed -n 's/^Version: //p' | sort -rV | uniq)
	fi
	[ -n "$versions" ] || die "no xen source package known to apt"
	for v in $versions; do
		log "fetching xen source $v"
		if (cd "$cache/dl" && apt_src source --download-only "xen=$v" >/dev/null 2>&1); then
			echo "$v"
			return 0
		fi
		log "xen $v not fetchable, trying an older one"
	done
	die "could not fetch any xen source"
}

tree=$cache/xen-src
patchfile=$srcroot/tools/xen/pmuvirt-xen.patch
if [ ! -e "$cache/xen-src.stamp" ]; then
	ver=$(fetch_source)
	dsc=$(ls "$cache"/dl/xen_"$(echo "$ver" | sed 's/^[0-9]*://')".dsc)
	rm -rf "$tree" "$cache/xen-src.tmp" "$cache/applied.patch"
	log "unpacking $dsc"
	dpkg-source --no-check -x "$dsc" "$cache/xen-src.tmp" >/dev/null
	mv "$cache/xen-src.tmp" "$tree"
	echo "$ver" >"$cache/xen-src.stamp"
fi
# (Re)apply the hooks when the patch changed: take the old one out first.
if ! cmp -s "$patchfile" "$cache/applied.patch"; then
	if [ -e "$cache/applied.patch" ]; then
		log "removing the previous pmuvirt-xen.patch"
		patch -d "$tree" -p1 -R -s <"$cache/applied.patch" ||
			die "cannot reverse the old patch; remove $cache to start again"
		rm -f "$cache/applied.patch"
	fi
	log "applying tools/xen/pmuvirt-xen.patch"
	patch -d "$tree" -p1 --forward -s <"$patchfile" ||
		die "pmuvirt-xen.patch does not apply to xen $(cat "$cache/xen-src.stamp")"
	cp "$patchfile" "$cache/applied.patch"
fi

# Import pmuvirt: a plain copy of the public headers, the core, the x86
# backend, the ABI checks and the Xen glue, with the source tree's layout kept so the
# glue's wrappers find the core files by relative path.
dst=$tree/xen/arch/x86/pmuvirt
mkdir -p "$dst.new/include" "$dst.new/src/arch" "$dst.new/src/glue"
cp -R "$srcroot/include/pmuvirt" "$dst.new/include/"
cp -R "$srcroot/src/core" "$dst.new/src/"
cp -R "$srcroot/src/arch/x86" "$dst.new/src/arch/"
cp -R "$srcroot/src/abi" "$dst.new/src/"
cp -R "$srcroot/src/glue/xen" "$dst.new/src/glue/"
# Only rewrite files that changed so make rebuilds only what it must.
if [ -d "$dst" ] && diff -r "$dst" "$dst.new" >/dev/null 2>&1; then
	rm -rf "$dst.new"
else
	if [ -d "$dst" ]; then
		(cd "$dst.new" && find . -type f) | while read -r f; do
			if cmp -s "$dst.new/$f" "$dst/$f"; then
				cp -p "$dst/$f" "$dst.new/$f"
			fi
		done
	fi
	# Drop the old copy (and its objects) only where sources differ.
	rm -rf "$dst.old"
	[ -d "$dst" ] && mv "$dst" "$dst.old"
	mv "$dst.new" "$dst"
	rm -rf "$dst.old"
fi
# Every core, backend and hypercall-check file must have a wrapper in the glue.
for f in "$srcroot"/src/core/*.c "$srcroot"/src/arch/x86/*.c "$srcroot"/src/abi/xen_*.c; do
	[ -e "$f" ] || continue
	case "$f" in
	*/core/*) w=pmuvirt_core_$(basename "$f") ;;
	*/abi/*) w=pmuvirt_abi_$(basename "$f") ;;
	*) w=pmuvirt_x86_$(basename "$f") ;;
	esac
	[ -e "$srcroot/src/glue/xen/$w" ] || die "src/glue/xen/$w missing for ${f#$srcroot/}"
done

if [ ! -e "$tree/xen/.config" ]; then
	log "configuring (defconfig)"
	make -s -C "$tree/xen" defconfig >/dev/null
fi
log "building xen/xen with $jobs jobs"
make -s -C "$tree/xen" -j"$jobs" >"$build/xen-build.log" 2>&1 || {
	tail -n 40 "$build/xen-build.log" >&2
	die "xen build failed (log: $build/xen-build.log)"
}
[ -e "$tree/xen/xen" ] || die "no xen/xen after the build"
echo "$tree/xen/xen"
