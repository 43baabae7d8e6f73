# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Sourced: an apt state of its own in a build directory, to download
# packages (another suite, another architecture) without touching the
# system's apt configuration or installing anything.  The archives are the
# ones /etc/apt/sources.list.d/debian.sources names.
#
# apt_private_setup DIR ARCH[,ARCH...] [SUITE]
#   DIR holds the state.  The first ARCH is the native one.  With SUITE,
#   only the first stanza (the main archive) is used, with that suite;
#   without, every stanza as configured.  Runs apt-get update once for DIR
#   (remove DIR to update again); returns 1 when no index came
#   (DIR/update.log).
# apt_private TOOL ARGS...
#   runs apt-get or apt-cache on the state of the last setup.

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
	_ap_key="$1 $2 ${3:-}"
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
			sed -e 's/^Types:.*/Types: deb/' -e "s/^Suites:.*/Suites: $3/" \
			>"$_ap_dir/sources.list.d/private.sources"
	else
		sed -e 's/^Types:.*/Types: deb/' "$_ap_src" >"$_ap_dir/sources.list.d/private.sources"
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
