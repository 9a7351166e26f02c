# Sourced by every script: paths, logging, the pinned base.
# shellcheck shell=bash
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${WORK:-$TOP/work}
CACHE=${KNAPID_CACHE:-$HOME/.cache/knapid}
VENV=$CACHE/venv
LINUX=$WORK/linux
# the installed kselftests (build-selftests.sh), what the guest runs
KSFT=$WORK/kselftest
BASE_PKG=linux-source-6.12
BASE_VERSION_PIN=6.12.117-1~deb12u1
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

# The kernel base the series are for; its patches are in patches/$KBASE.
KBASE=${BASE:-6.12}
[ "$KBASE" = 6.12 ] || die "BASE=$KBASE: patches/ has a series only for BASE=6.12"
PATCHES=$TOP/patches/$KBASE

# The series of the base, in the order they apply (patches/6.12/series: one
# "DIRECTORY COUNT" line each; DIRECTORY holds the cover letter, COUNT
# patches and their own `series` file).
series_dirs() {
	[ -f "$PATCHES/series" ] || return 0
	grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/series" | awk '{print $1}'
}

# How many patches `patches/6.12/series` says series DIRECTORY has.
series_count() {
	grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/series" | awk -v d="$1" '$1 == d {print $2}'
}

# The patch files of all series, in order, relative to $PATCHES
# (DIRECTORY/NNNN-*.patch; the cover letters are not listed).
series_patches() {
	local d
	for d in $(series_dirs); do
		[ -f "$PATCHES/$d/series" ] || continue
		grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/$d/series" | sed "s|^|$d/|"
	done
}

# The base fixups: patches to the base tree, not part of any series, that
# the harness applies before the series (patches/6.12/base-fixups/series).
base_fixups() {
	[ -f "$PATCHES/base-fixups/series" ] || return 0
	grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/base-fixups/series" | sed 's|^|base-fixups/|'
}

# Everything in $PATCHES that decides what a tree with the series holds:
# a hash over it tells whether a work tree is current.
patches_digest() {
	(cd "$PATCHES" && { cat series; for d in $(series_dirs) base-fixups; do cat "$d/series" 2>/dev/null; done
		{ base_fixups; series_patches; } | xargs -r cat; }) | sha256sum | cut -d' ' -f1
}

# The harness's placeholder identity, used where git has none configured.
PLACEHOLDER_NAME="knapid harness"
PLACEHOLDER_EMAIL="harness@example.invalid"

# git format-patch options shared by export and series-status, so the two
# produce byte-identical files for identical commits.
FORMAT_PATCH_OPTS=(--zero-commit --no-signature --no-cover-letter --minimal)

# The machine's own Debian mirror, from its apt sources (debootstrap): the
# first URL ending in /debian of a one-line "deb [opts] URL suite ..." or a
# deb822 "URIs:" line; deb.debian.org when there is none.
debian_mirror() {
	local m
	m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '$1 == "deb" || $1 == "URIs:" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) print $i }' |
		grep -E '/debian/?$' | head -n1 || true)
	echo "${m:-http://deb.debian.org/debian}"
}
