#!/usr/bin/env bash
# Write the work tree's commits since base into patches/$BASE: one directory
# per series as patches/$BASE/series lays them out (format-series.sh), with
# the cover letters' text kept.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -d "$LINUX/.git" ] || die "no kernel work tree at $LINUX (run 'make apply')"
cd "$LINUX"
[ -z "$(git status --porcelain)" ] || die "commit your edits in $LINUX first: $(git status --short | head -5 | tr '\n' ' ')"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/scripts/format-series.sh" "$tmp/out"
for d in $(series_dirs); do
	mkdir -p "$PATCHES/$d"
	find "$PATCHES/$d" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	cp "$tmp/out/$d"/* "$PATCHES/$d/"
done
cp "$tmp/out/series" "$PATCHES/series"
# the series is applied now: record it so apply-series does not redo the work
printf '%s %s\n%s\n' "$(patches_digest)" "$(git rev-parse tarball)" "$(git rev-parse HEAD)" > .git/knapid-series.sha256
for d in $(series_dirs); do
	log "exported $(wc -l < "$PATCHES/$d/series") patches to ${PATCHES#"$TOP"/}/$d/"
done
