#!/usr/bin/env bash
# `make check`: lint the series, boot the debug kernel, run the test list in
# the guest, scan for splats, and judge everything from the KTAP ourselves.
# usage: check.sh [FLAVOUR] [LIST]
set -uo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:-debug}
list=${2:-$TOP/tests/check.list}
out=$WORK/results/check-$flavour
rm -rf "$out"
mkdir -p "$out"

log "check: checkpatch --strict on the series"
"$TOP/scripts/lint-series.sh" > "$out/lint.ktap"
grep -E '^(not )?ok ' "$out/lint.ktap" >&2

log "check: tests in the $flavour guest ($list)"
"$TOP/scripts/run-guest.sh" "$flavour" "$out" "${GUEST_TIMEOUT:-2400}" \
	"$TOP/tests/guest/guest-main.sh $list $out" "${GUEST_APPEND:-}"
guest_rc=$?

# the host's own verdicts, as KTAP so one parser judges everything
{
	echo "TAP version 13"
	echo "1..2"
	if [ -f "$out/guest-done" ]; then
		echo "ok 1 guest-completed"
	else
		echo "# the guest did not finish its test list (exit code $guest_rc); see $out/console.log"
		tail -n 20 "$out/console.log" | sed 's/^/# /'
		echo "not ok 1 guest-completed"
	fi
	logs=("$out/console.log")
	[ -f "$out/dmesg.txt" ] && logs+=("$out/dmesg.txt")
	# an empty kmemleak report means no leak
	[ -s "$out/kmemleak.txt" ] && logs+=("$out/kmemleak.txt")
	if "$TOP/scripts/scan-splats.py" "${logs[@]}" > "$out/splats.txt"; then
		sed 's/^/# /' "$out/splats.txt"
		echo "ok 2 splat-scan"
	else
		sed 's/^/# /' "$out/splats.txt"
		echo "not ok 2 splat-scan"
	fi
} > "$out/host.ktap"

{
	grep -v -e '^\s*#' -e '^\s*$' "$list" | awk '{print $1}'
	echo guest-completed
	echo splat-scan
	series_patches | sed 's/^/checkpatch /'
} > "$out/expected"
[ -f "$out/results.ktap" ] || : > "$out/results.ktap"

cat "$out/splats.txt" >&2
log "check: verdict (results in $out)"
"$TOP/scripts/ktap-verdict.py" --expect "$out/expected" \
	--allow-skips "$TOP/tests/allowed-skips" \
	"$out/lint.ktap" "$out/results.ktap" "$out/host.ktap" | tee "$out/verdict.txt"
