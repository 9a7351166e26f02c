#!/usr/bin/env bash
# usage: am-check.sh [VERSION...]
# `make am-check`: does the series apply with plain `git am` on other 6.12
# trees? For each version of Debian's linux-source-6.12 (default: every one
# apt serves), fetch and commit it (fetch-base.sh, cached), clone it into
# work/am-check/VERSION and `git am --3way` every patch of patches/series in
# one command, the README's. A patch that does
# not apply is reported with the files it conflicts in, and the am aborted.
# The table goes to results/am-check.md; the exit code is 0 only when the
# series applied on every version from AM_CHECK_MIN (default 6.12.113, the
# oldest base the README promises) on; older ones are reported only.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# the oldest linux-source-6.12 the README says the series applies to
MIN_VERSION=${AM_CHECK_MIN:-6.12.113}
versions=("$@")
if [ ${#versions[@]} = 0 ]; then
	mapfile -t versions < <(apt-cache madison "$BASE_PKG" | awk '{print $3}' | sort -uV)
fi
[ ${#versions[@]} -gt 0 ] || die "apt serves no $BASE_PKG (run apt-get update?)"
mkdir -p "$WORK/am-check" "$TOP/results"
table=$TOP/results/am-check.md
npatches=$(series_patches | wc -l)
bad=0
{
	echo "# git am of the series ($npatches patches) on Debian's linux-source-6.12 versions"
	echo
	echo "Made by scripts/am-check.sh on $(date -u +%F) (harness commit $(git -C "$TOP" rev-parse --short HEAD))."
	echo
	echo "| linux-source-6.12 | result |"
	echo "|---|---|"
} > "$table"
for v in "${versions[@]}"; do
	log "am-check: $BASE_PKG $v"
	repo=$(BASE_VERSION=$v "$TOP/scripts/fetch-base.sh")
	dir=$WORK/am-check/$v
	rm -rf "$dir"
	git clone -q --shared --no-checkout "$repo" "$dir"
	git -C "$dir" config user.name "knapid harness"
	git -C "$dir" config user.email "harness@example.invalid"
	git -C "$dir" checkout -q -b work base
	# the README's command: every patch of the series in one git am
	result=
	if ! (cd "$dir" && sed "s|^|$TOP/patches/|" < <(series_patches) | xargs git am --3way) > "$dir.am.log" 2>&1; then
		next=$(cat "$dir/.git/rebase-apply/next" 2>/dev/null || true)
		p=$(series_patches | sed -n "${next:-1}p")
		files=$(git -C "$dir" diff --name-only --diff-filter=U | xargs)
		why=$(grep -m1 '^error:' "$dir.am.log" | sed 's/^error: //' || true)
		result="patch ${next:-?} $p does not apply${files:+ (conflicts in $files)}${why:+ ($why)}; $(git -C "$dir" rev-list --count base..HEAD) applied before it"
		git -C "$dir" am --abort > /dev/null 2>&1 || true
	fi
	if [ -z "$result" ]; then
		n=$(git -C "$dir" rev-list --count base..HEAD)
		result="all $n patches apply"
		[ "$n" = "$npatches" ] || result="only $n of $npatches commits after git am"
	fi
	# below the oldest base the README promises, a failure is reported only
	case $result in
	"all "*) ;;
	*) if [ "$(printf '%s\n' "$v" "$MIN_VERSION" | sort -V | head -n1)" = "$MIN_VERSION" ]; then
		bad=$((bad + 1))
	else
		result="$result (older than $MIN_VERSION, the oldest base the README promises)"
	fi ;;
	esac
	log "am-check: $v: $result"
	echo "| $v | $result |" >> "$table"
	rm -rf "$dir"
done
cat "$table"
[ $bad = 0 ] || die "the series does not apply on $bad of ${#versions[@]} versions"
