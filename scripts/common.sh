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

# The machine's own Debian mirror, from its apt sources (debootstrap).
debian_mirror() {
	# (a missing sources file makes grep exit 2: not an error here)
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -E '^\s*(URIs:|deb\s)' | grep -oE 'https?://[^ ]*/debian/?$' | head -n1 || true
}
