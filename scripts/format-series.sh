#!/usr/bin/env bash
# usage: format-series.sh OUTDIR
# Write the kernel work tree's commits as patches/$BASE lays them out, into
# OUTDIR: the series in the order and with the patch counts of
# patches/$BASE/series, each directory with its git format-patch files
# ([PATCH n/N] numbered per series), its `series` file and its cover letter
# (none for a series of one patch: "[PATCH net-next] ...").
# The cover letters keep the subject and text of the ones in patches/ (their
# shortlog and diffstat are made anew); a new series gets git's template.
# Every file gets To: and Cc: from get_maintainer.pl (cc-series.py).
# The commits since the `base` tag are split by those counts: a commit
# added to a series is exported once its count is raised.
# Where the work tree has a git identity of its own (user.name and
# user.email, local or global) the patches carry it, in From: and in the
# Signed-off-by that named the harness's placeholder.
# Shared by export-series.sh and series-status.sh, so both see the same files.
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=$1
[ -d "$LINUX/.git" ] || die "no kernel work tree at $LINUX (run 'make apply')"
mapfile -t dirs < <(series_dirs)
[ ${#dirs[@]} -gt 0 ] || die "$PATCHES/series names no series"
total=$(git -C "$LINUX" rev-list --count base..HEAD)
sum=0
for d in "${dirs[@]}"; do
	c=$(series_count "$d")
	[[ $c =~ ^[0-9]+$ ]] || die "$PATCHES/series: no patch count for $d"
	sum=$((sum + c))
done
[ "$sum" = "$total" ] ||
	die "the work tree has $total commits on base, $PATCHES/series counts $sum: set the count of the series you changed"

name=$(git -C "$LINUX" config user.name || true)
email=$(git -C "$LINUX" config user.email || true)
ident=
if [ -n "$name" ] && [ -n "$email" ] &&
   [ "$name <$email>" != "$PLACEHOLDER_NAME <$PLACEHOLDER_EMAIL>" ]; then
	ident="$name <$email>"
fi

mkdir -p "$out"
grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/series" > "$out/series.counts"
{ grep -e '^\s*#' "$PATCHES/series"; cat "$out/series.counts"; } > "$out/series"
rm -f "$out/series.counts"
start=$(git -C "$LINUX" rev-parse base)
for d in "${dirs[@]}"; do
	c=$(series_count "$d")
	end=$(git -C "$LINUX" rev-list --reverse "$start..HEAD" | sed -n "${c}p")
	mkdir -p "$out/$d"
	# a third field names the netdev tree: [PATCH net n/N]
	tree=$(series_tree "$d")
	# a single patch goes without a cover letter, as "[PATCH net-next]"
	cover=--cover-letter
	[ "$c" = 1 ] && cover=--no-numbered
	git -C "$LINUX" format-patch -q "${FORMAT_PATCH_OPTS[@]}" "$cover" \
		--subject-prefix="PATCH${tree:+ $tree}" -o "$out/$d" "$start..$end"
	(cd "$out/$d" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-cover-letter') > "$out/$d/series"
	python3 - "$out/$d" "$PATCHES/$d/0000-cover-letter.patch" "$ident" <<'PY'
import glob, os, re, sys
out, old, ident = sys.argv[1], sys.argv[2], sys.argv[3]
placeholder = "knapid harness <harness@example.invalid>"
patches = sorted(glob.glob(os.path.join(out, "[0-9][0-9][0-9][0-9]-*.patch")))
cover = os.path.join(out, "0000-cover-letter.patch")
last_date = None
# git format-patch folds a From: line longer than 78 columns before the
# address: write it the same way, so that the commits git am makes of these
# files format back to the same files
def from_header(ident):
    line = "From: " + ident
    if len(line) > 78:
        name, _, addr = ident.rpartition(" <")
        line = "From: " + name + "\n <" + addr
    return line


for p in patches:
    if p == cover:
        continue
    s = open(p).read()
    last_date = re.search(r"^Date: .*$", s, re.M).group(0)
    if ident:
        s = s.replace("\nFrom: " + placeholder + "\n", "\n" + from_header(ident) + "\n", 1)
        s = s.replace("\nSigned-off-by: " + placeholder + "\n",
                      "\nSigned-off-by: " + ident + "\n")
    open(p, "w").write(s)
if not os.path.exists(cover):
    sys.exit(0)
s = open(cover).read()
if ident:
    s = s.replace("\nFrom: " + placeholder + "\n", "\n" + from_header(ident) + "\n", 1)
    # the shortlog's author line
    s = re.sub(r"^knapid harness \(([0-9]+)\):$",
               lambda m: ident.rpartition(" <")[0] + " (" + m.group(1) + "):", s, flags=re.M)
if last_date:
    s = re.sub(r"^Date: .*$", last_date, s, count=1, flags=re.M)
if os.path.exists(old):
    o = open(old).read()
    head, _, body = o.partition("\n\n")
    subj = re.search(r"^Subject: \[PATCH (?:net |net-next )?[0-9]+/[0-9]+\] (.*(?:\n .*)*)", head, re.M)
    # the text ends where git's shortlog starts: "Author Name (N):"
    m = re.search(r"^\S.* \([0-9]+\):\n  ", body, re.M)
    blurb = body[:m.start()] if m else body
    if subj:
        s = s.replace("*** SUBJECT HERE ***", subj.group(1), 1)
    s = s.replace("*** BLURB HERE ***\n", blurb.rstrip("\n") + "\n", 1)
open(cover, "w").write(s)
PY
	# To: and Cc: from get_maintainer.pl and the blamed authors
	"$TOP/scripts/cc-series.py" write "$LINUX" "$TOP/patches/upstream-authors" "$out/$d" ||
		die "cannot write the recipients of $d"
	start=$end
done
