#!/usr/bin/env bash
# Exit 0 when the kernel work tree holds nothing that patches/ lacks: its
# commits since base export to exactly the files in patches/, and there are
# no uncommitted edits. Otherwise say what differs and exit 1.
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
git format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$tmp" base..HEAD
(cd "$tmp" && ls) > "$tmp/.have"
series_patches > "$tmp/.want"
if ! diff -q "$tmp/.have" "$tmp/.want" >/dev/null; then
	echo "the work tree's commits and patches/series differ:"
	diff -u --label patches/series --label "work tree (base..HEAD)" "$tmp/.want" "$tmp/.have" | tail -n +3
	rc=1
else
	while read -r p; do
		if ! cmp -s "$tmp/$p" "$TOP/patches/$p"; then
			echo "patches/$p differs from the work tree's commit:"
			diff -u "$TOP/patches/$p" "$tmp/$p" | head -20
			rc=1
		fi
	done < "$tmp/.want"
fi
[ $rc = 0 ] && echo "series in sync: $(wc -l < "$tmp/.want") patches"
exit $rc
