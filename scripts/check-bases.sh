#!/usr/bin/env bash
# usage: check-bases.sh BASE...
# `make check` over several bases, in turn: each base's preparation (make
# check-deps: the series applied, the kernels built, the selftests) and
# then its guests (make check-run). While one base's guests run, the next
# base is prepared beside them at nice 19, as its lint step is
# (check.sh), so the guests' vCPU threads take the CPU whenever they want
# it. Each base ends with its own verdict line; exits 1 when any base
# failed. CHECK_MAKE (default make) is there for the harness self-tests.
set -uo pipefail
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || die "usage: check-bases.sh BASE..."
bases=("$@")
prep_pid=
trap '[ -n "$prep_pid" ] && kill_tree "$prep_pid"; exit 130' INT TERM HUP

# prep_log BASE: where a base prepared in the background logs
prep_log() { echo "$WORK/check-prep-$1.log"; }

rc=0
prepared=
for i in "${!bases[@]}"; do
	b=${bases[$i]}
	next=${bases[$((i + 1))]:-}
	echo "== make check, base $b"
	if [ "$prepared" = "$b" ]; then
		# prepared in the background: its outcome now
		start=$(date +%s)
		wait_low "$prep_pid" "$(prep_log "$b")" "base $b's preparation beside the guests"
		prc=$?
		prep_pid=
		log "check: base $b's preparation beside the guests ended with exit code $prc (waited $(($(date +%s) - start)) s for it; log $(prep_log "$b"))"
		if [ $prc != 0 ]; then
			log "check: preparing base $b failed (exit code $prc); once more, in the foreground"
			"${CHECK_MAKE:-make}" -C "$TOP" --no-print-directory check-deps BASE="$b"
			prc=$?
		fi
	else
		"${CHECK_MAKE:-make}" -C "$TOP" --no-print-directory check-deps BASE="$b"
		prc=$?
	fi
	if [ -n "$next" ]; then
		mkdir -p "$WORK"
		log "check: preparing base $next beside base $b's guests (nice 19; log $(prep_log "$next"))"
		start_low "$(prep_log "$next")" "$(prep_log "$next")" \
			"${CHECK_MAKE:-make}" -C "$TOP" --no-print-directory check-deps BASE="$next"
		prep_pid=$low_pid
		prepared=$next
	fi
	if [ $prc != 0 ]; then
		echo "make check-deps BASE=$b failed with exit code $prc"
		echo "0 passed, 1 failed, 0 skipped"
		rc=1
		continue
	fi
	"${CHECK_MAKE:-make}" -C "$TOP" --no-print-directory check-run BASE="$b" || rc=1
done
exit $rc
