#!/usr/bin/env bash
# checkpatch.pl --strict on every patch of the series, as KTAP on stdout,
# then checks of the series as files: series-files (counts, numbering,
# [PATCH n/N] subjects and cover letters against the series files,
# check-series-files.py), cc-maintainers (every patch and cover letter
# goes to everyone get_maintainer.pl and its Fixes: tags name,
# cc-series.py, netdev CI's cc_maintainers), new-files (no patch creates a
# file the tarball already has, check-new-files.py), w1-builds (no patch
# adds a W=1 warning to the C files it touches, w1-builds.sh),
# tools-builds (no patch adds a warning or a stray file to the selftests'
# build, tools-builds.sh), on 7.3
# netdev CI's checks (shellcheck, ruff, pylint, kernel-doc, the test
# proportions: nipa-checks.py; checkpatch then runs with NIPA's flags:
# codespell, 80 columns), and sabotages-apply (every sabotage of `make sabotage`
# still applies to the series in the work tree).
# A patch passes only with no ERROR and no WARNING (CHECKs are shown); the
# exemptions, LONG_LINE in generated files, UNKNOWN_COMMIT_ID for an
# upstream commit listed in patches/upstream-commits (the bases have no
# git history) and FILE_PATH_CHANGES for new files MAINTAINERS already
# covers, are printed each time (scripts/checkpatch-verdict.py). Exits 1
# when any check fails.
set -uo pipefail
. "$(dirname "$0")/common.sh"
# checkpatch runs scripts/spdxcheck.py with "python3": the distribution's,
# which has python3-ply
export PATH=/usr/bin:$PATH

mapfile -t patches < <(series_patches)
mapfile -t checks < <(lint_series_checks | tr ' ' '\n')
failed=0
echo "TAP version 13"
echo "1..$((${#patches[@]} + ${#checks[@]}))"
n=0
# netdev CI's flags (NIPA's tests/patch/checkpatch), with codespell's
# dictionary from the harness's venv (install-deps.sh)
cp_flags=(--strict --show-types --no-color)
if [ "$NIPA_LINT" = 1 ]; then
	dict=$(ls "$VENV"/lib/python3*/site-packages/codespell_lib/data/dictionary.txt 2>/dev/null | head -n1)
	[ -n "$dict" ] || die "no codespell dictionary in $VENV: run scripts/install-deps.sh"
	cp_flags+=(--codespell --codespellfile="$dict" --max-line-length=80
		--ignore=COMMIT_LOG_LONG_LINE,MACRO_ARG_REUSE,ALLOC_SIZEOF_STRUCT,NO_AUTHOR_SIGN_OFF,GIT_COMMIT_ID,CAMELCASE,FILE_PATH_CHANGES,BAD_REPORTED_BY_LINK)
else
	echo "# BASE=$KBASE: checkpatch --strict (netdev CI's checks: BASE=7.3)"
fi
for p in "${patches[@]}"; do
	n=$((n + 1))
	out=$(cd "$LINUX" && scripts/checkpatch.pl "${cp_flags[@]}" \
		"$PATCHES/$p" 2>&1)
	sed 's/^/# /' <<<"$out"
	# no ERROR or WARNING (LONG_LINE in generated files excepted, and said
	# so), no crashed helper (spdxcheck), and checkpatch's totals printed
	verdict=$("$TOP/scripts/checkpatch-verdict.py" "$LINUX" "$TOP/patches/upstream-commits" \
		"$PATCHES/$p" <<<"$out")
	rc=$?
	[ -n "$verdict" ] && sed 's/^/# /' <<<"$verdict"
	if [ $rc = 0 ]; then
		echo "ok $n checkpatch $p"
	else
		echo "not ok $n checkpatch $p"
		failed=$((failed + 1))
	fi
done
# series_check NAME CMD...: one KTAP line for a check of the series as
# files, its output shown when it fails
series_check()
{
	local name=$1 out

	shift
	n=$((n + 1))
	if out=$("$@" 3>&2 2>&1); then
		echo "ok $n $name"
	else
		sed 's/^/# /' <<<"$out"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}
series_check series-files "$TOP/scripts/check-series-files.py" "$PATCHES"
mapfile -t dirs < <(series_dirs | sed "s|^|$PATCHES/|")
series_check cc-maintainers "$TOP/scripts/cc-series.py" check "$LINUX" \
	"$TOP/patches/upstream-authors" "${dirs[@]}"
mapfile -t all < <({ base_fixups; series_patches; } | sed "s|^|$PATCHES/|")
series_check new-files "$TOP/scripts/check-new-files.py" "$LINUX" tarball "${all[@]}"
# its progress (minutes, cold) goes to stderr as it comes: series_check
# keeps the caller's stderr on fd 3
w1_builds() { "$TOP/scripts/w1-builds.sh" 2>&3; }
series_check w1-builds w1_builds
tools_builds() { "$TOP/scripts/tools-builds.sh" 2>&3; }
series_check tools-builds tools_builds
if [ "$NIPA_LINT" = 1 ]; then
	for c in $NIPA_CHECKS; do
		series_check "$c" env VENV="$VENV" "$TOP/scripts/nipa-checks.py" "$c" \
			"$LINUX" "${dirs[@]}"
	done
fi
n=$((n + 1))
stale=0
for s in "$SABOTAGES"/*.patch; do
	[ -e "$s" ] || continue
	if ! out=$(git -C "$LINUX" apply --check "$s" 2>&1); then
		echo "# ${s#"$TOP"/} does not apply to the series in $LINUX:"
		sed 's/^/#   /' <<<"$out"
		stale=$((stale + 1))
	fi
done
if [ $stale = 0 ]; then
	echo "ok $n sabotages-apply"
else
	echo "not ok $n sabotages-apply"
	failed=$((failed + 1))
fi
# the exit code tells the truth: `make lint` fails when any patch does
if [ $failed -gt 0 ]; then
	echo "# lint: $failed of $((${#patches[@]} + ${#checks[@]})) checks failed" >&2
	exit 1
fi
