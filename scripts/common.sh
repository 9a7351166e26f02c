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

# The patch files of the series, in order (the cover letter is not in `series`).
series_patches() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v -e '^\s*#' -e '^\s*$' "$TOP/patches/series" || true
}

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
