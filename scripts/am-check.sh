#!/usr/bin/env bash
# usage: am-check.sh [VERSION...]
# `make am-check` (BASE=6.12 or 7.3): do the base's series apply with plain
# `git am` to real trees? For each version of Debian's linux-source-$BASE
# (default: every one apt serves; 7.3 from the private trixie-backports
# list of fetch-base.sh), `git am --3way` the series, in order, onto
#  (a) the unpacked tarball with every file committed, dotfiles included
#      (fetch-base.sh's `tarball`, cached), without the base fixups, and,
#      for the pinned version,
#  (b) the tree the recipe of docs/own-machine.md makes: its commands run as
#      written (the block after "<!-- am-check: recipe -->" in RECIPE_DOC,
#      "<!-- am-check: recipe 7.3 -->" for 7.3; the Debian mirror it names
#      replaced by the machine's), in a scratch directory; its base commit
#      must hold the same tree as (a).
# A patch that does not apply is reported with the files it conflicts in.
# The table goes to results/am-check-$BASE.md; the exit code is 0 only when the
# series applied on every version from AM_CHECK_MIN (default 6.12.113 or
# 7.3.4, the oldest base docs/own-machine.md promises) on, and to the
# recipe's tree.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# the page whose recipe block (b) runs, relative to the repository
RECIPE_DOC=docs/own-machine.md
case $KBASE in
6.12) MIN_VERSION=${AM_CHECK_MIN:-6.12.113} RECIPE_MARK='<!-- am-check: recipe -->' ;;
*) MIN_VERSION=${AM_CHECK_MIN:-7.3.4} RECIPE_MARK="<!-- am-check: recipe $KBASE -->" ;;
esac
versions=("$@")
if [ ${#versions[@]} = 0 ]; then
	base_apt_update
	mapfile -t versions < <(base_apt_cache madison "$BASE_PKG" | awk '{print $3}' | sort -uV)
fi
[ ${#versions[@]} -gt 0 ] || die "apt serves no $BASE_PKG (run apt-get update?)"
mkdir -p "$WORK/am-check" "$TOP/results"
table=$TOP/results/am-check-$KBASE.md
npatches=$(series_patches | wc -l)
# git am needs an identity; a user's own is kept
if [ -z "$(git config user.email || true)" ]; then
	export GIT_AUTHOR_NAME=$PLACEHOLDER_NAME GIT_AUTHOR_EMAIL=$PLACEHOLDER_EMAIL
	export GIT_COMMITTER_NAME=$PLACEHOLDER_NAME GIT_COMMITTER_EMAIL=$PLACEHOLDER_EMAIL
fi
bad=0
{
	echo "# git am of the series ($npatches patches in $(series_dirs | wc -l) series) on Debian's $BASE_PKG"
	echo
	echo "Made by scripts/am-check.sh on $(date -u +%F) (harness commit $(git -C "$TOP" rev-parse --short HEAD))."
	echo
	echo "| $BASE_PKG | tree | result |"
	echo "|---|---|---|"
} > "$table"

# the netdev trees of the base's series, when there are two or more
trees() {
	local t
	t=$(for d in $(series_dirs); do series_tree "$d"; done | sort -u)
	[ "$(echo "$t" | grep -c .)" -ge 2 ] && echo "$t"
	return 0
}

# am_series DIR: git am every series in DIR, one command per series as the
# recipe has it; prints the result
am_series() {
	local dir=$1 d before next p files why
	before=$(git -C "$dir" rev-list --count HEAD)
	for d in $(series_dirs); do
		if ! (cd "$dir" && sed "s|^|$PATCHES/$d/|" "$PATCHES/$d/series" | xargs git am --3way) >> "$dir.am.log" 2>&1; then
			next=$(cat "$dir/.git/rebase-apply/next" 2>/dev/null || true)
			p=$(sed -n "${next:-1}p" "$PATCHES/$d/series")
			files=$(git -C "$dir" diff --name-only --diff-filter=U | xargs)
			why=$(grep -m1 '^error:' "$dir.am.log" | sed 's/^error: //' || true)
			n=$(($(git -C "$dir" rev-list --count HEAD) - before))
			git -C "$dir" am --abort > /dev/null 2>&1 || true
			echo "$d/$p does not apply${files:+ (conflicts in $files)}${why:+ ($why)}; $n applied before it"
			return
		fi
	done
	n=$(($(git -C "$dir" rev-list --count HEAD) - before))
	if [ "$n" = "$npatches" ]; then
		echo "all $n patches apply"
	else
		echo "only $n of $npatches commits after git am"
	fi
}

# am_tree DIR TREE: NIPA's apply step for a posting to netdev tree TREE
# (net, net-next): the series for that tree alone, in order, each patch
# with plain `git am -s` (no three-way fallback), on the base without the
# series of the other tree; prints the result
am_tree() {
	local dir=$1 tree=$2 d p n=0 why ps
	for d in $(series_dirs); do
		[ "$(series_tree "$d")" = "$tree" ] || continue
		mapfile -t ps < <(grep -v -e '^\s*#' -e '^\s*$' "$PATCHES/$d/series")
		for p in "${ps[@]}"; do
			if ! git -C "$dir" am -s "$PATCHES/$d/$p" >> "$dir.am.log" 2>&1; then
				why=$(grep -m1 -e '^error:' -e 'patch failed' "$dir.am.log" | sed 's/^error: //' || true)
				git -C "$dir" am --abort > /dev/null 2>&1 || true
				echo "$d/$p does not apply${why:+ ($why)}; $n applied before it"
				return
			fi
			n=$((n + 1))
		done
	done
	echo "all $n patches apply"
}

# record VERSION TREE RESULT: a row of the table; a failure counts from
# MIN_VERSION on
record() {
	local v=$1 tree=$2 result=$3
	case $result in
	"all "*) ;;
	*) if [ "$(printf '%s\n' "$v" "$MIN_VERSION" | sort -V | head -n1)" = "$MIN_VERSION" ]; then
		bad=$((bad + 1))
	else
		result="$result (older than $MIN_VERSION, the oldest base $RECIPE_DOC promises)"
	fi ;;
	esac
	log "am-check: $v, $tree: $result"
	echo "| $v | $tree | $result |" >> "$table"
}

for v in "${versions[@]}"; do
	log "am-check: $BASE_PKG $v"
	repo=$(BASE_VERSION=$v "$TOP/scripts/fetch-base.sh")
	dir=$WORK/am-check/$v
	rm -rf "$dir" "$dir.am.log"
	git clone -q --shared --no-checkout "$repo" "$dir"
	git -C "$dir" checkout -q -b work tarball
	record "$v" "tarball, every file committed" "$(am_series "$dir")"
	# a base with series for two netdev trees: each tree's series alone,
	# as NIPA applies a posting to that tree
	for t in $(trees); do
		rm -rf "$dir" "$dir.am.log"
		git clone -q --shared --no-checkout "$repo" "$dir"
		git -C "$dir" checkout -q -b work tarball
		record "$v" "tarball, the $t series alone (git am, no 3-way)" "$(am_tree "$dir" "$t")"
	done
	rm -rf "$dir"
done

# (b) the recipe of RECIPE_DOC, run as written on the pinned version
recipe=$(awk -v mark="$RECIPE_MARK" '$0 == mark { f = 1; next }
	f && /^```/ { if (in_block) exit; in_block = 1; next }
	f && in_block { print }' "$TOP/$RECIPE_DOC")
[ -n "$recipe" ] || die "$RECIPE_DOC has no recipe block after $RECIPE_MARK"
# the recipe names deb.debian.org; the machine's own mirror is used here
mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources (/etc/apt/sources.list*)"
recipe=${recipe//http:\/\/deb.debian.org\/debian/$mirror}
scratch=$WORK/am-check/recipe
rm -rf "$scratch" "$scratch.am.log"
mkdir -p "$scratch"
log "am-check: the recipe of $RECIPE_DOC in $scratch"
if (cd "$scratch" && bash -e -o pipefail -c "${recipe//\/path\/to\/knapid/$TOP}") > "$scratch.am.log" 2>&1; then
	tree=$(git -C "$scratch/linux" rev-parse "$(git -C "$scratch/linux" rev-list --max-parents=0 HEAD)^{tree}")
	want=$(git -C "$(BASE_VERSION=$BASE_VERSION_PIN "$TOP/scripts/fetch-base.sh")" rev-parse 'tarball^{tree}')
	n=$(($(git -C "$scratch/linux" rev-list --count HEAD) - 1))
	if [ "$tree" != "$want" ]; then
		result="the recipe's base commit differs from the tarball with every file ($tree, not $want)"
	elif [ "$n" != "$npatches" ]; then
		result="only $n of $npatches commits after the recipe"
	else
		result="all $n patches apply"
	fi
else
	result="the recipe failed: $(grep -m1 -e '^error:' -e '^fatal:' -e 'does not apply' "$scratch.am.log" || tail -n1 "$scratch.am.log")"
fi
record "$BASE_VERSION_PIN" "the recipe of $RECIPE_DOC" "$result"
rm -rf "$scratch"
cat "$table"
[ $bad = 0 ] || die "the series do not apply in $bad of the trees tried"
