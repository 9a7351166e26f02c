#!/usr/bin/env bash
# Make $LINUX = the base tarball + the base fixups + the series of
# patches/$BASE. In $LINUX, tag `tarball` is the unpacked tarball (every
# file of it) and tag `base` the tree the series apply to (the base fixups
# on top). Cheap when nothing changed; refuses to throw away commits or
# edits in $LINUX that are not exported into patches/.
set -euo pipefail
. "$(dirname "$0")/common.sh"

base_repo=$("$TOP/scripts/fetch-base.sh")
tarball=$(git -C "$base_repo" rev-parse tarball)
stamp=$LINUX/.git/knapid-series.sha256
want="$(patches_digest) $tarball"

if [ -d "$LINUX/.git" ] && [ "$(git -C "$LINUX" rev-parse -q --verify tarball 2>/dev/null)" != "$tarball" ]; then
	if git -C "$LINUX" rev-parse -q --verify base >/dev/null 2>&1; then
		"$TOP/scripts/series-status.sh" >&2 ||
			die "$LINUX is on another base and holds unexported work; run 'make export' or remove it"
	fi
	log "base changed: recreating $LINUX"
	rm -rf "$LINUX"
fi
if [ ! -d "$LINUX/.git" ]; then
	log "cloning the base into $LINUX"
	mkdir -p "$WORK"
	git clone -q --no-checkout "$base_repo" "$LINUX"
	git -C "$LINUX" checkout -q -b work tarball
	git -C "$LINUX" tag base tarball
fi

cd "$LINUX"
# commits made here (git am, your own) carry your git identity; the
# harness's placeholder only where git has none
if [ -z "$(git config user.email || true)" ]; then
	git config user.name "$PLACEHOLDER_NAME"
	git config user.email "$PLACEHOLDER_EMAIL"
fi
# build-selftests.sh builds out of the tree (O=), except the YNL C library
# that tools/net/ynl builds in place: keep those outputs (and those of
# older harness versions, which built busy_poller in the tree) out of `git
# status` and of series-status
cat > .git/info/exclude <<'EXCLUDE'
/tools/net/ynl/generated/*-user.[cho]
/tools/net/ynl/generated/protos.a
/tools/net/ynl/lib/ynl.[aod]
/tools/net/ynl/libynl.a
/tools/testing/selftests/net/libynl.a
/tools/testing/selftests/net/busy_poller
EXCLUDE
if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$want" ] &&
   [ "$(sed -n 2p "$stamp")" = "$(git rev-parse HEAD)" ] &&
   [ -z "$(git status --porcelain)" ]; then
	log "series already applied ($(git rev-list --count base..HEAD) patches)"
	exit 0
fi

# Anything here that patches/ does not have would be lost by re-applying;
# a tree exactly as an earlier apply or export left it holds nothing else.
head=$(git rev-parse HEAD)
if { [ "$head" != "$(git rev-parse base)" ] && [ "$head" != "$(sed -n 2p "$stamp" 2>/dev/null)" ]; } ||
   [ -n "$(git status --porcelain)" ]; then
	"$TOP/scripts/series-status.sh" >&2 ||
		die "refusing to re-apply: $LINUX holds work that is not in patches/ (run 'make export' first, or 'git -C $LINUX reset --hard base' to drop it)"
fi

git am --abort >/dev/null 2>&1 || true
git checkout -q -B work tarball
am() {
	local p=$1
	[ -f "$PATCHES/$p" ] || die "${PATCHES#"$TOP"/} names $p, which does not exist"
	git am -q --keep-cr "$PATCHES/$p" || { git am --abort; die "patch $p does not apply"; }
}
nf=0
while read -r p; do
	am "$p"
	nf=$((nf + 1))
done < <(base_fixups)
git tag -f base >/dev/null
n=0
while read -r p; do
	am "$p"
	n=$((n + 1))
done < <(series_patches)
printf '%s\n%s\n' "$want" "$(git rev-parse HEAD)" > "$stamp"
log "applied $nf base fixups and $n patches in $(series_dirs | wc -l) series on $(git log -1 --format=%s tarball)"
