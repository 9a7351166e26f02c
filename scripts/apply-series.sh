#!/usr/bin/env bash
# Make $LINUX = base + patches/series. Cheap when nothing changed; refuses to
# throw away commits or edits in $LINUX that are not exported into patches/.
set -euo pipefail
. "$(dirname "$0")/common.sh"

base_repo=$("$TOP/scripts/fetch-base.sh")
stamp=$LINUX/.git/knapid-series.sha256
want=$(cd "$TOP/patches" && { cat series 2>/dev/null; series_patches | xargs -r cat; } | sha256sum | cut -d' ' -f1)
want="$want $(git -C "$base_repo" rev-parse base)"

if [ -d "$LINUX/.git" ] && [ "$(git -C "$LINUX" rev-parse base 2>/dev/null)" != "$(git -C "$base_repo" rev-parse base)" ]; then
	"$TOP/scripts/series-status.sh" >&2 || die "$LINUX is on another base and holds unexported work; run 'make export' or remove it"
	log "base changed: recreating $LINUX"
	rm -rf "$LINUX"
fi
if [ ! -d "$LINUX/.git" ]; then
	log "cloning the base into $LINUX"
	mkdir -p "$WORK"
	git clone -q --no-checkout "$base_repo" "$LINUX"
	git -C "$LINUX" config user.name "knapid harness"
	git -C "$LINUX" config user.email "harness@example.invalid"
	git -C "$LINUX" checkout -q -b work base
fi

cd "$LINUX"
# build-selftests.sh builds out of the tree (O=), except the YNL C library
# that tools/net/ynl builds in place; the Debian tree has no .gitignore:
# keep those outputs (and those of older harness versions, which built
# busy_poller in the tree) out of `git status` and of series-status
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

# Anything here that patches/ does not have would be lost by re-applying.
if [ "$(git rev-parse HEAD)" != "$(git rev-parse base)" ] || [ -n "$(git status --porcelain)" ]; then
	"$TOP/scripts/series-status.sh" >&2 ||
		die "refusing to re-apply: $LINUX holds work that is not in patches/ (run 'make export' first, or 'git -C $LINUX reset --hard base' to drop it)"
fi

git am --abort >/dev/null 2>&1 || true
git checkout -q -B work base
n=0
while read -r p; do
	[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which does not exist"
	git am -q --keep-cr "$TOP/patches/$p" || { git am --abort; die "patch $p does not apply"; }
	n=$((n + 1))
done < <(series_patches)
printf '%s\n%s\n' "$want" "$(git rev-parse HEAD)" > "$stamp"
log "applied $n patches on $(git log -1 --format=%s base)"
