# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced by test/qemu-ppc/run-qemu-ppc.sh and test/qemu-pnv/run-qemu-pnv.sh:
# build a bare-metal image (big-endian ELFv1, linked at 0 by image.lds) from
# the shared files here, the image's own files and, if asked, the pmuvirt
# library (core, POWER and PV backends) compiled unchanged.
#
# image_start JOB SOURCE_DIR
#                           name the job for messages; install what it needs
# image_die MESSAGE         print MESSAGE for the job and exit 1
# image_setup SOURCE_DIR    check the tools; set image_cflags
# image_lib OBJDIR          compile the library; set image_lib_objs
# image_cc OBJDIR DEFS F... compile F... with the extra flags DEFS;
#                           append the objects to image_objs
# image_link OUT OBJS...    link OUT (and OUT.map)
# image_verdict JOB TAG RC LOG TIMEOUT
#                           judge a boot: QEMU's exit status RC (124: the
#                           timeout) and the pass marker in LOG; prints why
#                           and returns 1 when it failed

image_cross=powerpc64-linux-gnu
image_job=image

image_die() {
	echo "$image_job: $*" >&2
	exit 1
}

image_start() {
	image_job=$1
	"$2/tools/install-deps.sh" qemu-ppc ||
		image_die "missing packages: run 'tools/install-deps.sh qemu-ppc' as root"
}

image_setup() {
	image_src=$1
	image_shared=$image_src/test/qemu-ppc
	for t in $image_cross-gcc $image_cross-ld $image_cross-objcopy; do
		command -v $t >/dev/null || image_die "$t not found (tools/install-deps.sh qemu-ppc)"
	done
	image_cflags="-m64 -mbig-endian -mcpu=power8 -mabi=elfv1 -O2 -g -ffreestanding -nostdinc
		-fno-stack-protector -fno-pic -msoft-float -mno-altivec -mno-vsx
		-Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration
		-DPMUVIRT_HAVE_ENV=1 -I$image_src/src/glue/freestanding -I$image_src/src/core
		-I$image_src/src/arch -I$image_src/include -I$image_shared ${QPPC_CFLAGS:-}"
	image_objs=
}

image_lib() {
	mkdir -p "$1"
	image_lib_objs=
	for f in $(ls "$image_src"/src/core/*.c "$image_src"/src/arch/ppc/*.c \
			"$image_src"/src/arch/pv/*.c 2>/dev/null || true); do
		o=$1/lib-$(basename "$(dirname "$f")")-$(basename "$f" .c).o
		# shellcheck disable=SC2086
		$image_cross-gcc $image_cflags -DPMUVIRT_CORE_BUILD=1 -c "$f" -o "$o" ||
			image_die "$f does not build freestanding for the image"
		image_lib_objs="$image_lib_objs $o"
	done
}

image_cc() {
	_ic_dir=$1
	_ic_defs=$2
	shift 2
	mkdir -p "$_ic_dir"
	for f in "$@"; do
		o=$_ic_dir/$(basename "$f").o
		# shellcheck disable=SC2086
		$image_cross-gcc $image_cflags $_ic_defs -c "$f" -o "$o" || image_die "$f does not build"
		image_objs="$image_objs $o"
	done
}

image_link() {
	_il_out=$1
	shift
	# shellcheck disable=SC2068
	$image_cross-ld -static -nostdlib --no-warn-rwx-segments -T "$image_shared/image.lds" \
		-Map "$_il_out.map" -o "$_il_out" $@ || image_die "link of $_il_out failed"
}

image_verdict() {
	if [ "$3" = 124 ]; then
		echo "$1: $2: timed out after $5 s" >&2
	elif [ "$3" != 0 ]; then
		echo "$1: $2: QEMU exit status $3 (guest failure)" >&2
	elif ! grep -q "^PMUVIRT-QEMU-PPC: PASS" "$4"; then
		echo "$1: $2: exit status 0 but no 'PMUVIRT-QEMU-PPC: PASS' on the console" >&2
	else
		return 0
	fi
	return 1
}
