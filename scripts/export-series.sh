#!/usr/bin/env bash
# Write the work tree's commits since base into patches/ (format-patch files
# and the series file). The cover letter, patches/0000-cover-letter.patch, is
# hand-written and kept.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -d "$LINUX/.git" ] || die "no kernel work tree at $LINUX (run 'make apply')"
cd "$LINUX"
[ -z "$(git status --porcelain)" ] || die "commit your edits in $LINUX first: $(git status --short | head -5 | tr '\n' ' ')"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$tmp" base..HEAD
find "$TOP/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
(cd "$tmp" && ls) > "$TOP/patches/series"
cp "$tmp"/*.patch "$TOP/patches/" 2>/dev/null || true
# the series is applied now: record it so apply-series does not redo the work
want=$(cd "$TOP/patches" && { cat series; series_patches | xargs -r cat; } | sha256sum | cut -d' ' -f1)
printf '%s %s\n%s\n' "$want" "$(git rev-parse base)" "$(git rev-parse HEAD)" > .git/knapid-series.sha256
log "exported $(wc -l < "$TOP/patches/series") patches to patches/"
