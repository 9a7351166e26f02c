#!/usr/bin/env bash
# Fetch Debian's linux-source-$KBASE (BASE=6.12 or 7.3), unpack it and make a git repository with one
# commit tagged "tarball" that holds every file of the tarball as it is, the
# dotfiles (.gitignore, .clang-format, ...) included (BASE_VERSION=V: that
# version instead of the pin). The result is cached under
# $CACHE/base/<version> (outside the repo, so fresh clones reuse it) and its
# path is printed on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"

pick_version() {
	base_apt_update
	# BASE_VERSION: another version of the base package (am-check.sh)
	if [ -n "${BASE_VERSION:-}" ]; then
		base_apt_cache madison "$BASE_PKG" | awk '{print $3}' | grep -qxF "$BASE_VERSION" ||
			die "apt serves no $BASE_PKG=$BASE_VERSION (served: $(base_apt_cache madison "$BASE_PKG" | awk '{print $3}' | xargs))"
		echo "$BASE_VERSION"
		return
	fi
	if base_apt_cache madison "$BASE_PKG" | awk '{print $3}' | grep -qxF "$BASE_VERSION_PIN"; then
		echo "$BASE_VERSION_PIN"
		return
	fi
	local newest
	newest=$(base_apt_cache madison "$BASE_PKG" | awk '{print $3}' | sort -V | tail -n1)
	[ -n "$newest" ] || die "apt serves no $BASE_PKG (run apt-get update?)"
	warn "pinned $BASE_PKG $BASE_VERSION_PIN is not served any more; falling back to $newest (the series is tested on $BASE_VERSION_PIN)"
	echo "$newest"
}

version=$(pick_version)
dir=$CACHE/base/$version
repo=$dir/linux
# a cache made by an older harness (Debian's top-level .gitignore edited,
# dotfiles not committed) is made again
FORMAT="tarball, every file"
if [ -f "$dir/.done" ] && [ "$(sed -n 2p "$dir/.done")" = "$FORMAT" ]; then
	log "base $version cached in $repo"
	echo "$repo"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
log "downloading $BASE_PKG=$version"
(cd "$dir" && base_apt_get download -q "$BASE_PKG=$version" >&2)
deb=$(ls "$dir"/*.deb)
log "unpacking $(basename "$deb")"
mkdir -p "$repo"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO "./usr/src/$BASE_PKG.tar.xz" |
	tar -xJ -C "$repo" --strip-components=1
rm -f "$deb"

log "making the base commit (86k files, takes a while)"
(
	cd "$repo"
	git init -q -b base-branch
	git config user.name "knapid harness"
	git config user.email "harness@example.invalid"
	# Debian's top-level .gitignore ignores every top-level entry and every
	# dotfile: -f commits the tree as the tarball has it
	git add -A -f
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git commit -q -m "Debian $BASE_PKG $version"
	git tag tarball
	git gc -q --auto
)
printf '%s\n%s\n' "$version" "$FORMAT" > "$dir/.done"
log "base $version ready"
echo "$repo"
