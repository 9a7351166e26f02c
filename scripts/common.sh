# Sourced by every script: paths, logging, the pinned base.
# shellcheck shell=bash
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${KNAPID_CACHE:-$HOME/.cache/knapid}
VENV=$CACHE/venv
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

# kill_tree PID: stop PID and every process below it (a background step
# and the builds it started)
kill_tree() {
	local c

	kill -STOP "$1" 2>/dev/null || return 0
	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null
	kill -CONT "$1" 2>/dev/null
	return 0
}

# start_low OUT LOG CMD...: run CMD in the background at nice 19 (a step
# beside the guests, whose vCPU threads then take the CPU whenever they
# want it), its stdout to OUT and its stderr to LOG (one file when they
# are the same); its pid in low_pid
start_low() {
	local out=$1 log=$2

	shift 2
	if [ "$out" = "$log" ]; then
		nice -n 19 "$@" > "$log" 2>&1 &
	else
		nice -n 19 "$@" > "$out" 2> "$log" &
	fi
	low_pid=$!
}

# wait_low PID LOG WHAT: wait for a step start_low started and return its
# exit code; when it failed, say so and show LOG, indented
wait_low() {
	local rc=0

	wait "$1" || rc=$?
	if [ $rc != 0 ]; then
		echo "# $3 exited with code $rc; its log ($2):" >&2
		sed 's/^/#   /' "$2" >&2
	fi
	return $rc
}

# same_config DIR FLAVOUR OTHER...: print the first OTHER whose
# DIR/build-OTHER/.config is FLAVOUR's, comments aside (Kconfig resolved
# both to one kernel, as debug and nothreaded before the series adds
# CONFIG_THREADED_NAPI); fail if there is none
same_config() {
	local dir=$1 f=$2 g

	shift 2
	for g in "$@"; do
		if cmp -s <(grep -v '^#' "$dir/build-$f/.config") <(grep -v '^#' "$dir/build-$g/.config"); then
			echo "$g"
			return 0
		fi
	done
	return 1
}

# new_warnings BEFORE AFTER: the lines of AFTER not in BEFORE, as
# multisets (a warning twice after it and once before is one new one)
new_warnings() {
	comm -13 <(grep . <<<"$1" | awk '{ print $0 " #" ++n[$0] }' | sort) \
		<(grep . <<<"$2" | awk '{ print $0 " #" ++n[$0] }' | sort) | sed 's/ #[0-9]*$//'
}

# The output of a lint build that depends only on what it reads
# (w1-builds.sh, tools-builds.sh): kept under $LINT_RESULTS, keyed by a
# hash of its inputs (the tree by its git tree id, the .configs, the
# compiler, the scripts that build and parse it), and replayed when the
# same inputs come again, as ccache replays an object and its warnings.
# Only a build that succeeded is kept: a failed one is built again and
# shown. LINT_RESULTS=off keeps and replays nothing.
LINT_RESULTS=${LINT_RESULTS:-$CACHE/lint-results}

# result_key PART...: the key of a build whose inputs are the PARTs (a
# string, or "@PATH" for a file's content), the compiler and the script
result_key() {
	local p

	{
		gcc --version | head -n 1
		sha256sum "$0" "$TOP/scripts/common.sh" | cut -d ' ' -f 1
		for p in "$@"; do
			case $p in
			@*) sha256sum < "${p#@}" ;;
			*) printf '%s\n' "$p" ;;
			esac
		done
	} | sha256sum | cut -c 1-40
}

# result_get KEY: print the output kept for KEY; fail when there is none
result_get() {
	[ "$LINT_RESULTS" != off ] && [ -f "$LINT_RESULTS/$1" ] && cat "$LINT_RESULTS/$1"
}

# result_put KEY OUTPUT: keep OUTPUT for KEY (written whole, then renamed)
result_put() {
	[ "$LINT_RESULTS" != off ] || return 0
	mkdir -p "$LINT_RESULTS"
	printf '%s\n' "$2" > "$LINT_RESULTS/$1.$$"
	mv "$LINT_RESULTS/$1.$$" "$LINT_RESULTS/$1"
}

# kbuild_env BASEDIR: constant build metadata, so that a rebuild makes the
# same objects, and ccache settings that serve them to any tree under
# BASEDIR (clones, worktrees, the sabotage and build-each trees)
kbuild_env() {
	export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
	export KBUILD_BUILD_USER=knapid KBUILD_BUILD_HOST=harness KBUILD_BUILD_VERSION=1
	export CCACHE_BASEDIR=$1 CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
}

# worktree_at TREE: TREE is a detached worktree of $LINUX, added if needed.
# A worktree whose repository apply-series.sh re-created is stale, and its
# .git may even name another worktree's entry (git names them after the
# directory, and build-each's and w1-builds.sh's are both "linux"): only
# one that $LINUX lists under this path is kept
worktree_at() {
	local tree=$1

	if [ -e "$tree" ] &&
		! git -C "$LINUX" worktree list --porcelain | grep -qxF "worktree $tree"; then
		rm -rf "$tree"
		git -C "$LINUX" worktree prune
	fi
	if [ ! -e "$tree/.git" ]; then
		log "worktree $tree"
		git -C "$LINUX" worktree add -q --detach "$tree" HEAD
	fi
}

# The kernel base the series are for (BASE=6.12 or 7.3); its patches are in
# patches/$KBASE. BASE_SUITE: the Debian suite that serves the base when the
# machine's own apt sources do not (7.3 comes from trixie-backports), read
# from the Debian mirror those sources name (debian_mirror).
KBASE=${BASE:-6.12}
case $KBASE in
6.12)
	BASE_PKG=linux-source-6.12 BASE_VERSION_PIN=6.12.117-1~deb12u1 BASE_SUITE=
	;;
7.3)
	BASE_PKG=linux-source-7.3 BASE_VERSION_PIN=7.3.4-1~bpo13+1
	BASE_SUITE=trixie-backports
	;;
*)
	die "BASE=$KBASE: patches/ has series for BASE=6.12 and BASE=7.3 only"
	;;
esac
PATCHES=$TOP/patches/$KBASE
# the base's scratch trees: work/ for 6.12, work/7.3/ for 7.3; its
# sabotages (make sabotage): tests/sabotage/, tests/sabotage/7.3/
if [ "$KBASE" = 6.12 ]; then
	WORK=${WORK:-$TOP/work}
	SABOTAGES=$TOP/tests/sabotage
else
	WORK=${WORK:-$TOP/work/$KBASE}
	SABOTAGES=$TOP/tests/sabotage/$KBASE
fi
LINUX=$WORK/linux
# the installed kselftests (build-selftests.sh), what the guest runs
KSFT=${KSFT:-$WORK/kselftest}
# the kselftest targets the series' tests live in, what the guests run
# (build-selftests.sh) and what lint's tools-builds builds per patch
KSFT_TARGETS="net drivers/net drivers/net/virtio_net"
# netdev CI's checks in `make lint` (lint-series.sh): checkpatch with
# NIPA's flags, and nipa-checks.py's. On 7.3; the 6.12 series still
# carries the shell tests that 7.3's were rewritten from (knapid.sh,
# napi_irq.sh), which NIPA would flag: checkpatch --strict alone there.
NIPA_LINT=0
[ "$KBASE" = 6.12 ] || NIPA_LINT=1
NIPA_CHECKS="shellcheck ruff pylint kernel-doc proportions"
# lint_series_checks: the names of lint-series.sh's checks of the series as
# files, in order (check.sh expects each one)
lint_series_checks() {
	echo series-files cc-maintainers new-files w1-builds tools-builds
	[ "$NIPA_LINT" = 1 ] && echo "$NIPA_CHECKS"
	echo sabotages-apply
}

# The Debian archive the machine's apt sources name (deb822 .sources or
# one-line .list files; not the security archive), e.g.
# http://deb.debian.org/debian
debian_mirror() {
	local f
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk 'BEGIN { RS = ""; FS = "\n" }
			     { uri = ""; suites = ""; types = ""
			       for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { uri = $i; sub(/^URIs:[ \t]*/, "", uri); sub(/[ \t].*/, "", uri) }
				if ($i ~ /^Suites:/) suites = $i
				if ($i ~ /^Types:/) types = $i
			       }
			       if (uri != "" && types ~ /[ \t]deb([ \t]|$)/ && suites !~ /security/) print uri }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk '$1 == "deb" && $0 !~ /security/ {
				for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f"
		done
	} | head -n1
}

# apt-get / apt-cache for the base package: the machine's own sources, or
# with BASE_SUITE a private list of that suite on debian_mirror (its own
# state under $CACHE/apt-$BASE_SUITE; the machine's apt state is not touched)
base_apt_opts() {
	[ -n "$BASE_SUITE" ] || return 0
	local d=$CACHE/apt-$BASE_SUITE
	printf '%s\n' -o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o APT::Get::List-Cleanup=0 \
		-o APT::Sandbox::User=root
}

# (once: again with FORCE=1)
base_apt_update() {
	[ -n "$BASE_SUITE" ] || return 0
	[ -z "${FORCE:-}" ] && compgen -G "$CACHE/apt-$BASE_SUITE/lists/*Packages*" >/dev/null && return 0
	local d=$CACHE/apt-$BASE_SUITE mirror
	mirror=$(debian_mirror)
	[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources (/etc/apt/sources.list*)"
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	echo "deb $mirror $BASE_SUITE main" > "$d/sources.list"
	log "apt: $BASE_SUITE from $mirror (private list in $d)"
	local opts
	mapfile -t opts < <(base_apt_opts)
	apt-get -q "${opts[@]}" update >&2 || die "apt-get update of $BASE_SUITE from $mirror failed"
}

# (the download goes to a directory of root's cache, which apt's _apt user
# cannot write: download as root rather than warn about it)
base_apt_get() {
	local opts
	mapfile -t opts < <(base_apt_opts)
	apt-get -o APT::Sandbox::User=root "${opts[@]}" "$@"
}

base_apt_cache() {
	local opts
	mapfile -t opts < <(base_apt_opts)
	apt-cache "${opts[@]}" "$@"
}

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

# The netdev tree series DIRECTORY is for (a third field: net, net-next),
# or nothing.
series_tree() {
	grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/series" | awk -v d="$1" '$1 == d {print $3}'
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
# (--abbrev: the index lines do not depend on how many objects the tree has)
FORMAT_PATCH_OPTS=(--zero-commit --no-signature --no-cover-letter --minimal --abbrev=9)
