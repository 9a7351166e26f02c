#!/usr/bin/env bash
# `make stress`: the stress, fault and bad-input campaign of
# tests/stress/stress.list on the stress kernel (configs/debug.config +
# configs/stress.config: lockdep, kmemleak, DEBUG_OBJECTS_TIMERS, KASAN),
# booted under QEMU TCG once per boot group, judged like make check (KTAP
# verdict, splat scan, kmemleak scan per boot), with the counts in
# results/stress/<date>-<commit>-<base>[-quick][-part-NAMES]/report.md.
# QUICK=1: the quick scale (about 20 minutes of tests); else the full one.
# ONLY="NAME...": only those tests of the list (a part of the campaign).
# Exit code: 0 only when every case passed, no splat, no leak.
set -uo pipefail
. "$(dirname "$0")/common.sh"

scale=full
[ -n "${QUICK:-}" ] && scale=quick
commit=$(git -C "$TOP" rev-parse --short HEAD)
dirty=$(git -C "$TOP" status --porcelain -- tests/stress scripts configs | grep -q . && echo -dirty)
# "@full " lines (boot groups) only at the full scale
full_only='/^@full /d'
[ $scale = full ] && full_only='s/^@full //'
list=$(sed -e "$full_only" -e "s/@SCALE@/$scale/g" "$TOP/tests/stress/stress.list")
# ONLY="NAME...": those tests alone, in their boot groups: a campaign too
# long for one sitting run in parts, each part's report its own, in a
# directory named after its tests
part=
if [ -n "${ONLY:-}" ]; then
	# shellcheck disable=SC2086 # the names, one per word
	list=$("$TOP/scripts/list-only.py" $ONLY <<<"$list") || die "stress: ONLY=\"$ONLY\": see above"
	# shellcheck disable=SC2086 # the names, one per word
	part=-part-$(printf '%s\n' $ONLY | paste -sd+)
fi
# one directory per day, commit, base, scale and part; an earlier run's
# results are never overwritten
out=${STRESS_RESULTS:-$TOP/results/stress}/$(date -u +%F)-$commit$dirty-$KBASE${QUICK:+-quick}$part
[ -e "$out" ] && die "stress: ${out#"$TOP"/} holds an earlier run's results: move it away first"
mkdir -p "$out" || die "cannot create $out"
echo "$list" > "$out/stress.list"
{
	echo "# make stress${QUICK:+ QUICK=1}${ONLY:+ ONLY=\"$ONLY\"}, $(date -u '+%F %T') UTC, harness $commit$dirty"
	echo "scripts/stress.sh (scale $scale): scripts/check.sh stress $out/stress.list"
} > "$out/commands.txt"

start=$(date +%s)
log "stress: scale $scale, results in ${out#"$TOP"/}"
# progress: every 60 s the last line the running test printed
# (sleep holds no output: a pipe reading this script ends when it does)
(
	while sleep 60 >/dev/null 2>&1; do
		c=$(ls -t "$out"/run/boot-*/*.log 2>/dev/null | grep -v -e console.log -e check.log | head -n1)
		[ -n "$c" ] && log "stress, $(( $(date +%s) - start ))s: ${c#"$out"/run/}: $(tail -n1 "$c" | cut -c1-160)"
	done
) &
watcher=$!
trap 'kill $watcher 2>/dev/null' EXIT
# the guests: 3G (KASAN's shadow takes an eighth), and hours for the full
# campaign's longest boot; no lint step (CHECK_LINT=no): the series' lint
# is make check's, and it needs the debug build the campaign does not
CHECK_LINT=no GUEST_MEMORY=${GUEST_MEMORY:-3G} \
GUEST_TIMEOUT=${GUEST_TIMEOUT:-$([ $scale = full ] && echo 43200 || echo 5400)} \
CHECK_OUT=$out/run "$TOP/scripts/check.sh" stress "$out/stress.list" 2>&1 | tee "$out/check.log"
rc=${PIPESTATUS[0]}
secs=$(( $(date +%s) - start ))
"$TOP/scripts/stress-report.py" "$out" "$scale" "$secs" "$rc" > "$out/report.md" ||
	{ warn "stress-report.py failed"; rc=1; }
log "stress: done in ${secs}s with exit code $rc: $out/report.md"
exit "$rc"
