#!/usr/bin/env bash
# checkpatch.pl --strict on every patch of the series, as KTAP on stdout.
# A patch passes only with no ERROR and no WARNING (CHECKs are shown); the
# one exemption, LONG_LINE in generated files, is printed for each line
# (scripts/checkpatch-verdict.py). Exits 1 when any patch fails.
set -uo pipefail
. "$(dirname "$0")/common.sh"
# checkpatch runs scripts/spdxcheck.py with "python3": the distribution's,
# which has python3-ply
export PATH=/usr/bin:$PATH

mapfile -t patches < <(series_patches)
failed=0
echo "TAP version 13"
echo "1..${#patches[@]}"
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	out=$(cd "$LINUX" && scripts/checkpatch.pl --strict --show-types --no-color \
		"$TOP/patches/$p" 2>&1)
	sed 's/^/# /' <<<"$out"
	# no ERROR or WARNING (LONG_LINE in generated files excepted, and said
	# so), no crashed helper (spdxcheck), and checkpatch's totals printed
	verdict=$("$TOP/scripts/checkpatch-verdict.py" "$LINUX" <<<"$out")
	rc=$?
	[ -n "$verdict" ] && sed 's/^/# /' <<<"$verdict"
	if [ $rc = 0 ]; then
		echo "ok $n checkpatch $p"
	else
		echo "not ok $n checkpatch $p"
		failed=$((failed + 1))
	fi
done
# the exit code tells the truth: `make lint` fails when any patch does
if [ $failed -gt 0 ]; then
	echo "# checkpatch: $failed of ${#patches[@]} patches failed" >&2
	exit 1
fi
