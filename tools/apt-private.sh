# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced: an apt state of its own in a build directory, to download
# packages (another suite, another architecture) without touching the
# system's apt configuration or installing anything.  The archives are the
# ones /etc/apt/sources.list.d/debian.sources names.
#
# apt_private_setup DIR ARCH[,ARCH...] [SUITE] [TYPE]
#   DIR holds the state.  The first ARCH is the native one.  With SUITE,
#   only the first stanza (the main archive) is used, with that suite;
#   without, every stanza as configured.  TYPE is deb (default) or deb-src.
#   Runs apt-get update once for DIR (remove DIR to update again); returns
#   1 when no index came (DIR/update.log).
# apt_private TOOL ARGS...
#   runs apt-get or apt-cache on the state of the last setup.
# apt_private_source DIR PACKAGE DEST [VERSION...]
#   Debian's source package PACKAGE unpacked into DEST, once: DEST.stamp
#   holds its version, and a DEST with a stamp is kept.  The first VERSION
#   that can be downloaded; without VERSIONs, the versions the deb-src
#   indexes know, newest first (the newest security upload may be missing
#   from the source pool).  Sets apt_source_version; returns 1 with a
#   message on stderr when nothing could be fetched.

apt_private() {
	_ap_tool=$1
	shift
	# shellcheck disable=SC2086
	"$_ap_tool" -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$_ap_dir/sources.list.d" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$_ap_dir/none" \
		-o Dir::State::Lists="$_ap_dir/lists" -o Dir::State::status="$_ap_dir/status" \
		-o Dir::Cache="$_ap_dir/cache" \
		-o APT::Sandbox::User="$(id -un)" -o Debug::NoLocking=1 \
		-o APT::Architecture="$_ap_native" $_ap_archopts "$@"
}

apt_private_setup() {
	_ap_dir=$1
	_ap_type=${4:-deb}
	_ap_key="$1 $2 ${3:-} $_ap_type"
	[ "${_ap_done:-}" = "$_ap_key" ] && return 0
	_ap_native=${2%%,*}
	_ap_archopts=
	for _a in $(echo "$2" | tr , ' '); do
		_ap_archopts="$_ap_archopts -o APT::Architectures::=$_a"
	done
	_ap_src=/etc/apt/sources.list.d/debian.sources
	[ -f "$_ap_src" ] || { echo "apt-private: no $_ap_src" >&2; return 1; }
	mkdir -p "$_ap_dir/sources.list.d" "$_ap_dir/lists/partial" "$_ap_dir/none" \
		"$_ap_dir/cache/archives/partial"
	: >>"$_ap_dir/status"
	[ -f "$_ap_dir/updated" ] && return 0
	if [ -n "${3:-}" ]; then
		awk 'BEGIN { RS = ""; ORS = "\n" } NR == 1' "$_ap_src" |
			sed -e "s/^Types:.*/Types: $_ap_type/" -e "s/^Suites:.*/Suites: $3/" \
			>"$_ap_dir/sources.list.d/private.sources"
	else
		sed -e "s/^Types:.*/Types: $_ap_type/" "$_ap_src" >"$_ap_dir/sources.list.d/private.sources"
	fi
	# An index that fails (a mirror in sync) is left out when others came:
	# what is downloaded is named by exact version and checked by apt.
	if ! apt_private apt-get update >"$_ap_dir/update.log" 2>&1; then
		ls "$_ap_dir"/lists/*_Packages* >/dev/null 2>&1 || return 1
		echo "apt-private: some indexes failed, using the others (see $_ap_dir/update.log)" >&2
	fi
	touch "$_ap_dir/updated"
	_ap_done=$_ap_key
}

apt_private_source() {
	_as_dir=$1 _as_pkg=$2 _as_dest=$3
	shift 3
	if [ -f "$_as_dest.stamp" ] && [ -d "$_as_dest" ]; then
		apt_source_version=$(cat "$_as_dest.stamp")
		return 0
	fi
	apt_private_setup "$_as_dir" "$(dpkg --print-architecture)" "" deb-src || {
		echo "apt-private: no deb-src index (see $_as_dir/update.log)" >&2
		return 1
	}
	_as_versions=$*
	[ -n "$_as_versions" ] || _as_versions=$(apt_private apt-cache showsrc "$_as_pkg" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -rV | uniq)
	[ -n "$_as_versions" ] || { echo "apt-private: no $_as_pkg source package known to apt" >&2; return 1; }
	rm -rf "$_as_dir/dl" "$_as_dest" "$_as_dest.tmp" "$_as_dest.stamp"
	mkdir -p "$_as_dir/dl"
	for _as_v in $_as_versions; do
		echo "apt-private: fetching $_as_pkg source $_as_v" >&2
		if (cd "$_as_dir/dl" && apt_private apt-get source --download-only "$_as_pkg=$_as_v" >/dev/null 2>&1); then
			dpkg-source --no-check --no-copy -x "$_as_dir/dl/${_as_pkg}_${_as_v#*:}.dsc" "$_as_dest.tmp" >/dev/null ||
				{ echo "apt-private: cannot unpack $_as_pkg $_as_v" >&2; return 1; }
			mv "$_as_dest.tmp" "$_as_dest"
			echo "$_as_v" >"$_as_dest.stamp"
			apt_source_version=$_as_v
			return 0
		fi
		echo "apt-private: $_as_pkg $_as_v cannot be fetched, trying the next" >&2
	done
	echo "apt-private: could not fetch any $_as_pkg source" >&2
	return 1
}
