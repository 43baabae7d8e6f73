#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
#
# tools/hpctoolkit/build.sh - build the HPCToolkit dependency chain (XED,
# libmonitor, Dyninst) and HPCToolkit itself from sources fetched beforehand,
# without network (docs/papi.md, "HPCToolkit").
#
# Usage:
#   hpctoolkit-build.sh SRCDIR PREFIX [BUILDDIR]
#
#   SRCDIR   directory holding the unpacked sources (plain trees, no .git needed):
#              SRCDIR/xed         intelxed/xed      tag v2023.10.11
#                                 (d7d46c73fb04a1742e99c9382a4acb4ed07ae272)
#              SRCDIR/mbuild      intelxed/mbuild   c07bd90b71c608c615a7fa643d373f11ba355a24
#                                 (master of 2023-10-05; must sit next to xed/)
#              SRCDIR/libmonitor  HPCToolkit/libmonitor master
#                                 48520940b915352748950ea718fadc82f87f659d
#              SRCDIR/dyninst     dyninst/dyninst   tag v13.0.0
#                                 (268b6300b59d507317b6c342ae9588eb6fedf2ac)
#              SRCDIR/hpctoolkit  HPCToolkit/hpctoolkit branch develop
#                                 f9abaf11f91be0eb07c2d198bad2c9670ac97a03 (Meson build)
#   PREFIX   install prefix (created if missing)
#   BUILDDIR build directory (default: PREFIX/../build)
#
# Environment:
#   PAPI_PREFIX  PAPI install prefix with lib/pkgconfig/papi.pc, such as
#                the one papi/build.sh installs (default "none": HPCToolkit
#                without PAPI).
#   JOBS         parallel compile jobs (default 2, capped at 2)
#   STEPS        space-separated subset of: check xed libmonitor dyninst
#                dyninst-install hpctoolkit-setup hpctoolkit-build hpctesttool
#                Default: all of them, in that order (all verified on Debian 12
#                with DYNINST_PARTIAL=1; see docs/papi.md).  libmonitor is built
#                for completeness only: HPCToolkit's develop branch vendors its
#                own copy (src/hpcrun/libmonitor) and does not link this one.
#   DYNINST_PARTIAL  1 (default): build only the Dyninst libraries HPCToolkit
#                links (parseAPI, symtabAPI, instructionAPI and their deps
#                common, dynElf, dynDwarf) and install just those plus the
#                CMake package files.  0: build and install all of Dyninst
#                (NOT verified: did not fit the time budget).
#
# Required Debian 12 packages (install beforehand; this script never uses the
# network): see REQUIRED_PKGS below; meson >= 1.1.0 from bookworm-backports.
#
# All compile steps run under "nice -n 19".

set -eu

die() { echo "hpctoolkit/build.sh: error: $*" >&2; exit 1; }
log() { echo "=== [$(date -u +%H:%M:%S)] $*"; }

[ $# -ge 2 ] || die "usage: $0 SRCDIR PREFIX [BUILDDIR]"
SRCDIR=$1
PREFIX=$2
[ -d "$SRCDIR" ] || die "source directory '$SRCDIR' does not exist"
SRCDIR=$(cd "$SRCDIR" && pwd)
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
BUILDDIR=${3:-$PREFIX/../build}
mkdir -p "$BUILDDIR"
BUILDDIR=$(cd "$BUILDDIR" && pwd)

PAPI_PREFIX=${PAPI_PREFIX:-none}
JOBS=${JOBS:-2}
[ "$JOBS" -ge 1 ] 2>/dev/null || die "JOBS must be a positive integer"
[ "$JOBS" -le 2 ] || JOBS=2
STEPS=${STEPS:-check xed libmonitor dyninst dyninst-install hpctoolkit-setup hpctoolkit-build hpctesttool}
DYNINST_PARTIAL=${DYNINST_PARTIAL:-1}
NICE="nice -n 19"

REQUIRED_PKGS="build-essential cmake ninja-build pkg-config python3 autoconf
automake libtool libelf-dev libdw-dev libboost-dev libboost-graph-dev
libboost-atomic-dev libboost-chrono-dev libboost-date-time-dev
libboost-filesystem-dev libboost-thread-dev libboost-timer-dev libbz2-dev
libtbb-dev libunwind-dev libxerces-c-dev liblzma-dev zlib1g-dev libzstd-dev
libxxhash-dev libyaml-cpp-dev libiberty-dev libpfm4-dev python3-ruamel.yaml meson"

# Dyninst libraries HPCToolkit needs, and the build subdirectories holding them.
DYNINST_TARGETS="parseAPI symtabAPI instructionAPI"
DYNINST_SUBDIRS="common elf dwarf instructionAPI symtabAPI parseAPI"
DYNINST_UNBUILT="pcontrol stackwalk patchAPI dyninstAPI dynC_API dyninstAPI_RT dyninstAPI_RT_static"

need_dir() { [ -d "$SRCDIR/$1" ] || die "missing source tree $SRCDIR/$1 ($2)"; }
need_file() { [ -f "$1" ] || die "missing file $1 ($2)"; }
has_step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

step_check() {
	log "check: inputs and installed packages"
	missing=""
	for p in $REQUIRED_PKGS; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed"; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] || die "Debian packages not installed:$missing (meson must come from bookworm-backports)"
	mv=$(meson --version) || die "meson not runnable"
	case $mv in
		0.*|1.0.*) die "meson $mv too old; need >= 1.1.0 (bookworm-backports)" ;;
	esac
	if has_step xed; then
		need_dir xed "intelxed/xed v2023.10.11"
		need_dir mbuild "intelxed/mbuild"
		need_file "$SRCDIR/xed/mfile.py" "XED build driver"
	fi
	if has_step libmonitor; then
		need_file "$SRCDIR/libmonitor/configure" "HPCToolkit/libmonitor"
	fi
	if has_step dyninst; then
		need_file "$SRCDIR/dyninst/CMakeLists.txt" "dyninst/dyninst v13.0.0"
	fi
	if has_step xed || has_step hpctoolkit-setup; then
		need_file "$SRCDIR/hpctoolkit/meson.build" "HPCToolkit/hpctoolkit develop"
		need_file "$SRCDIR/hpctoolkit/subprojects/packagefiles/xed-werror-pr333.patch" "HPCToolkit's XED patch"
	fi
	if has_step hpctoolkit-setup && [ "$PAPI_PREFIX" != none ]; then
		need_file "$PAPI_PREFIX/lib/pkgconfig/papi.pc" "PAPI (set PAPI_PREFIX=none to disable)"
	fi
	log "check: ok (meson $mv)"
}

step_xed() {
	log "xed: patch (XED_NORETURN, from HPCToolkit's wrap) and build"
	if grep -q '_Noreturn' "$SRCDIR/xed/include/public/xed/xed-portability.h"; then
		echo "xed: patch already applied"
	else
		(cd "$SRCDIR/xed" && patch -p1 < "$SRCDIR/hpctoolkit/subprojects/packagefiles/xed-werror-pr333.patch")
	fi
	mkdir -p "$BUILDDIR/xed"
	(cd "$BUILDDIR/xed" && $NICE python3 "$SRCDIR/xed/mfile.py" --jobs="$JOBS" \
		--shared --opt=2 --prefix="$PREFIX" install)
	need_file "$PREFIX/lib/libxed.so" "XED install result"
	need_file "$PREFIX/include/xed/xed-interface.h" "XED install result"
}

step_libmonitor() {
	log "libmonitor: configure, build, install"
	mkdir -p "$BUILDDIR/libmonitor"
	(cd "$BUILDDIR/libmonitor" &&
		$NICE "$SRCDIR/libmonitor/configure" --prefix="$PREFIX" &&
		$NICE make -j"$JOBS" &&
		$NICE make install)
	need_file "$PREFIX/lib/libmonitor.so" "libmonitor install result"
}

step_dyninst() {
	log "dyninst: configure (Release) and build"
	$NICE cmake -S "$SRCDIR/dyninst" -B "$BUILDDIR/dyninst" -G Ninja \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX"
	if [ "$DYNINST_PARTIAL" = 1 ]; then
		# shellcheck disable=SC2086
		$NICE ninja -C "$BUILDDIR/dyninst" -j"$JOBS" $DYNINST_TARGETS
	else
		$NICE ninja -C "$BUILDDIR/dyninst" -j"$JOBS"
	fi
}

step_dyninst_install() {
	log "dyninst: install (partial=$DYNINST_PARTIAL)"
	if [ "$DYNINST_PARTIAL" != 1 ]; then
		cmake --install "$BUILDDIR/dyninst"
		return
	fi
	for d in $DYNINST_SUBDIRS; do
		cmake -DCMAKE_INSTALL_PREFIX="$PREFIX" -P "$BUILDDIR/dyninst/$d/cmake_install.cmake"
	done
	# top-level rules only: CMake package config, version and export files
	cmake -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LOCAL_ONLY=1 \
		-P "$BUILDDIR/dyninst/cmake_install.cmake"
	cfg="$PREFIX/lib/cmake/Dyninst/DyninstTargets-release.cmake"
	need_file "$cfg" "Dyninst export file"
	# The export file verifies that every exported library exists; drop that
	# check for the libraries deliberately not built (HPCToolkit links none).
	for t in $DYNINST_UNBUILT; do
		sed -i "/^list(APPEND _cmake_import_check_targets Dyninst::$t )\$/d" "$cfg"
	done
	need_file "$PREFIX/lib/libparseAPI.so" "Dyninst parseAPI"
}

hpctk_meson_args() {
	if [ "$PAPI_PREFIX" = none ]; then
		papi="-Dpapi=disabled"; pcp=""; papirpath=""
	else
		papi="-Dpapi=enabled"; pcp="-Dpkg_config_path=$PAPI_PREFIX/lib/pkgconfig"
		papirpath=",'-Wl,-rpath,$PAPI_PREFIX/lib'"
	fi
}

step_hpctoolkit_setup() {
	log "hpctoolkit: meson setup"
	hpctk_meson_args
	# XED's CMake find module in HPCToolkit expects xed-build-defines.h next to
	# the include dir it finds, which does not hold for XED's own install
	# layout (include/xed/...); meson then falls back to compiler checks, for
	# which the prefix is passed via c_args/link_args.
	# shellcheck disable=SC2086
	$NICE meson setup "$BUILDDIR/hpctoolkit" "$SRCDIR/hpctoolkit" \
		--prefix="$PREFIX" --buildtype=release --wrap-mode=nodownload \
		-Dcmake_prefix_path="$PREFIX" $pcp $papi \
		-Dc_args="['-I$PREFIX/include']" -Dcpp_args="['-I$PREFIX/include']" \
		-Dc_link_args="['-L$PREFIX/lib','-Wl,-rpath,$PREFIX/lib'$papirpath]" \
		-Dcpp_link_args="['-L$PREFIX/lib','-Wl,-rpath,$PREFIX/lib'$papirpath]" \
		-Dcuda=disabled -Drocm=disabled -Dlevel0=disabled -Dgtpin=disabled \
		-Dopencl=disabled -Dhpcprof_mpi=disabled -Dpython=disabled \
		-Dmanpages=disabled -Dmanual=disabled -Dmanual_pdf=disabled \
		-Dtests=disabled
}

step_hpctoolkit_build() {
	log "hpctoolkit: build and install"
	$NICE meson compile -C "$BUILDDIR/hpctoolkit" -j "$JOBS"
	$NICE meson install -C "$BUILDDIR/hpctoolkit"
}

# HPCToolkit's own Python reader of its databases (src/hpctesttool), which
# meson does not install: test/hpctoolkit reads hpcprof's output with it.
step_hpctesttool() {
	log "hpctesttool: copy to $PREFIX/share/hpctoolkit/python"
	[ -d "$SRCDIR/hpctoolkit/src/hpctesttool/hpctesttool/formats" ] ||
		die "no src/hpctesttool/hpctesttool in $SRCDIR/hpctoolkit"
	rm -rf "$PREFIX/share/hpctoolkit/python"
	mkdir -p "$PREFIX/share/hpctoolkit/python"
	cp -R "$SRCDIR/hpctoolkit/src/hpctesttool/hpctesttool" "$PREFIX/share/hpctoolkit/python/"
}

has_step check && step_check
has_step xed && step_xed
has_step libmonitor && step_libmonitor
has_step dyninst && step_dyninst
has_step dyninst-install && step_dyninst_install
has_step hpctoolkit-setup && step_hpctoolkit_setup
has_step hpctoolkit-build && step_hpctoolkit_build
has_step hpctesttool && step_hpctesttool
log "done: steps '$STEPS' finished"
