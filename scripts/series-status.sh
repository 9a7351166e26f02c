#!/usr/bin/env bash
# Exit 0 when the kernel work tree holds nothing that patches/ lacks: its
# commits since base export to exactly the files in patches/$BASE, and there
# are no uncommitted edits. Otherwise say what differs and exit 1.
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ ! -d "$LINUX/.git" ]; then
	echo "no kernel work tree ($LINUX): nothing to export"
	exit 0
fi
cd "$LINUX"
rc=0
dirty=$(git status --porcelain)
if [ -n "$dirty" ]; then
	echo "uncommitted changes in $LINUX (commit them, then 'make export'):"
	echo "$dirty" | head -20
	rc=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$TOP/scripts/format-series.sh" "$tmp/out" 2> "$tmp/err"; then
	sed 's/^\[[0-9:]*\] ERROR: //' "$tmp/err"
	exit 1
fi
for d in $(series_dirs) series; do
	if ! diff -r -q "$PATCHES/$d" "$tmp/out/$d" > /dev/null; then
		echo "${PATCHES#"$TOP"/}/$d differs from the work tree's commits:"
		diff -r -u "$PATCHES/$d" "$tmp/out/$d" | head -20
		rc=1
	fi
done
[ $rc = 0 ] && echo "series in sync: $(series_patches | wc -l) patches in $(series_dirs | wc -l) series"
exit $rc
