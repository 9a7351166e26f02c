#!/usr/bin/env bash
# usage: sabotage.sh [FILTER...]
# Prove that the tests discriminate. For each entry of tests/sabotage/manifest
# (only those whose name starts with a FILTER, e.g. 05, when given): apply
# its sabotage patch with `git apply` on top of the series in a separate work
# dir, build the debug kernel there (incrementally, ccache), boot it with the
# entry's tests (scripts/check.sh on the entry's list, checkpatch stubbed)
# and check that every expected case FAILS (scripts/sabotage-verdict.py).
#
# The table goes to results/sabotage/table.md and stdout, the guests' results
# to results/sabotage/NAME/. Exit code 1 if any sabotage was not caught, or
# could not be applied, built or run.
#
# BASE=7.3: the sabotages of tests/sabotage/7.3/ on the 7.3 series, results
# in results/sabotage-7.3/.
#
# Environment: SABOTAGE_WORK (default work/sabotage, work/7.3/sabotage) is
# the work dir, never the main one (its kernel tree is reset at will);
# GUEST_TIMEOUT goes to check.sh.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
main_work=$TOP/work res=$TOP/results/sabotage
if [ "${BASE:-6.12}" != 6.12 ]; then
	main_work=$TOP/work/$BASE res=$TOP/results/sabotage-$BASE
fi
export WORK=${SABOTAGE_WORK:-$main_work/sabotage}
# the guests run a kselftest install of our own, built from the series in
# our tree: rebuilding the main work dir's would pull it from under a
# `make check` running at the same time
export KSFT=$WORK/kselftest
. "$TOP/scripts/common.sh"
sab=$SABOTAGES

[ "$(realpath -m "$WORK")" != "$(realpath -m "$main_work")" ] ||
	die "SABOTAGE_WORK must not be the main work dir: its kernel tree gets reset"
manifest=$sab/manifest
lists=$WORK/lists

# The manifest, one directory per entry: lists/NAME/tests.list and cases
rm -rf "$lists"
names=()
name=
while read -r kw rest; do
	case $kw in
	''|'#'*) continue ;;
	sabotage) name=$rest; names+=("$name"); mkdir -p "$lists/$name"
		: > "$lists/$name/tests.list"; : > "$lists/$name/cases" ;;
	run) echo "$rest" >> "$lists/$name/tests.list" ;;
	fail) echo "$rest" >> "$lists/$name/cases" ;;
	*) die "$manifest: unknown keyword '$kw'" ;;
	esac
	[ -n "$name" ] || die "$manifest: '$kw' before the first 'sabotage' line"
done < "$manifest"

selected=()
for name in "${names[@]}"; do
	[ $# -eq 0 ] && { selected+=("$name"); continue; }
	for f in "$@"; do
		[[ $name == "$f"* ]] && { selected+=("$name"); break; }
	done
done
[ ${#selected[@]} -gt 0 ] || die "no sabotage in $manifest matches: $*"
for name in "${selected[@]}"; do
	[ -f "$sab/$name.patch" ] || die "no ${sab#"$TOP"/}/$name.patch"
	[ -s "$lists/$name/cases" ] || die "$name: no 'fail' line in $manifest"
done

mkdir -p "$res"
rows=$res/rows.tsv
: > "$rows"

# row NAME STATUS CASE DETAIL TIME: one line of the table (fields
# separated by US, \x1f: a field may be empty)
row() { local IFS=$'\x1f'; echo "$*" >> "$rows"; }
# every case of NAME was not run, for REASON
not_run() {
	local case
	while IFS= read -r case; do
		row "$1" "not run" "$case" "$2" "${3:--}"
	done < "$lists/$1/cases"
}

# $LINUX = the series, without any sabotage. The tree is ours: a previous
# sabotage is dropped, and a tree of an older series is started over.
clean_tree() {
	if [ -d "$LINUX/.git" ]; then
		git -C "$LINUX" reset -q --hard || return 1
		"$TOP/scripts/series-status.sh" > /dev/null ||
			git -C "$LINUX" reset -q --hard base || return 1
	fi
	"$TOP/scripts/apply-series.sh"
}

# run CMD... with a progress line every 30 s: the newest result in the log
# the guest writes for the running test (run-tests.sh's OUTDIR/NAME.log)
with_progress() {
	local label=$1 start i pid newest last
	shift
	start=$(date +%s)
	"$@" &
	pid=$!
	for ((i = 1; ; i++)); do
		sleep 5
		kill -0 $pid 2>/dev/null || break
		((i % 6)) && continue
		newest=$(ls -t "$WORK"/results/check-debug/boot-*/*.log 2>/dev/null | grep -v /console.log | head -n 1)
		last=$(grep -E '^(not )?ok ' "$newest" 2>/dev/null | tail -n 1)
		log "$label: $(( $(date +%s) - start ))s${newest:+, ${newest##*/}}${last:+: $last}"
	done
	wait $pid
}

# the selftests of the series (no sabotage touches them), built once
if ! clean_tree || ! "$TOP/scripts/build-selftests.sh"; then
	for name in "${selected[@]}"; do
		not_run "$name" "the series' selftests could not be built in $WORK"
	done
	selected=()
fi

for name in "${selected[@]}"; do
	log "sabotage $name"
	out=$res/$name
	rm -rf "$out"
	mkdir -p "$out"
	start=$(date +%s)
	if ! clean_tree; then
		not_run "$name" "the series could not be applied in $LINUX"
		continue
	fi
	if ! git -C "$LINUX" apply "$sab/$name.patch"; then
		not_run "$name" "the patch does not apply on the series"
		continue
	fi
	git -C "$LINUX" diff --stat >&2
	# the debug kernel, and the flavour of each boot group that names one
	# ([boot@rt ...])
	mapfile -t flavours < <(echo debug; sed -n 's/^\[boot@\([a-z]*\).*/\1/p' "$lists/$name/tests.list" | sort -u)
	failed=
	for fl in "${flavours[@]}"; do
		if ! "$TOP/scripts/configure-kernel.sh" "$fl" || ! "$TOP/scripts/build-kernel.sh" "$fl"; then
			failed=$fl
			break
		fi
	done
	if [ -n "$failed" ]; then
		cp "$WORK/build-$failed/build.log" "$out/" 2>/dev/null
		not_run "$name" "the sabotaged $failed kernel did not build (${res#"$TOP"/}/$name/build.log)"
		continue
	fi
	built=$(date +%s)
	# check.sh boots one guest per boot group of the list. Its own verdict
	# (verdict.txt) is not this one: checkpatch is stubbed out (LINT=true)
	# and counted missing there, and so are the CASES of the list lines.
	with_progress "sabotage $name: guest" \
		env LINT=true "$TOP/scripts/check.sh" debug "$lists/$name/tests.list" > /dev/null
	cp -a "$WORK/results/check-debug/." "$out/"
	secs="build $((built - start)) s, guest $(( $(date +%s) - built )) s"
	# the host's checks of each boot that failed (a hang, a splat), as a note
	host=$(cat "$out"/boot-*/host.ktap 2>/dev/null | sed -n 's/^not ok [0-9]* \([^ #]*\).*/\1/p' | paste -sd ' ')
	[ -z "$host" ] || secs="$secs; host checks failed: $host"
	ktaps=("$out"/boot-*/results.ktap)
	[ -e "${ktaps[0]}" ] || ktaps=()
	"$TOP/scripts/sabotage-verdict.py" --cases "$lists/$name/cases" "${ktaps[@]}" > "$out/cases.tsv"
	while IFS=$'\t' read -r st case detail; do
		row "$name" "$st" "$case" "$detail" "$secs"
	done < "$out/cases.tsv"
	[ -s "$out/cases.tsv" ] || not_run "$name" "sabotage-verdict.py failed"
done
# leave the tree as the series, for the next run and for a human
git -C "$LINUX" reset -q --hard

# the table
caught=0 total=0
{
	echo "| sabotage | test | expected failing case | observed | time, notes |"
	echo "|---|---|---|---|---|"
	while IFS=$'\x1f' read -r name st case detail secs; do
		detail=${detail//|/\\|}
		total=$((total + 1))
		case $st in
		failed) observed="FAILED as expected"; caught=$((caught + 1)) ;;
		passed) observed="**still passes**" ;;
		skipped) observed="**SKIP** ($detail)" ;;
		missing) observed="**not reported** ($detail)" ;;
		*) observed="**not run**: $detail" ;;
		esac
		[ "$st" = failed ] && [ -n "$detail" ] && observed="$observed: $detail"
		test=${case%%: *}
		echo "| $name | $test | ${case#"$test: "} | $observed | $secs |"
	done < "$rows"
	echo
	echo "$caught of $total expected failures observed ($(date -u '+%Y-%m-%d %H:%M UTC'))."
} > "$res/table.md"
cat "$res/table.md"
[ "$caught" = "$total" ] && [ "$total" -gt 0 ]
