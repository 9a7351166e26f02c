#!/usr/bin/env bash
# usage: build-each.sh [FLAVOUR...]   (default: release nothreaded)
# EACH_FROM=N starts at patch N of the series (default 1).
# Build every commit of the series on its own (each patch must build), in a
# separate worktree under $WORK/each so work/linux is left alone. Each
# flavour is configured once at the top of the series; that .config is put
# back before every build, so options that appear later in the series (and
# that Kconfig drops at earlier commits) come back when they exist.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(release nothreaded)
each=$WORK/each
tree=$each/linux

git -C "$LINUX" rev-parse -q --verify base >/dev/null || die "no work tree: run make apply"
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no commits on top of base in $LINUX"
# a worktree whose repository was re-created by apply-series.sh is stale
if [ -e "$tree" ] && ! git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$tree"
	git -C "$LINUX" worktree prune
fi
if [ ! -e "$tree/.git" ]; then
	log "each: worktree $tree"
	git -C "$LINUX" worktree add -q --detach "$tree" HEAD
fi
git -C "$tree" checkout -q --detach "${commits[-1]}"

for flavour in "${flavours[@]}"; do
	# builds at earlier commits rewrote .config: configure afresh
	rm -f "$each/build-$flavour/fragments.config"
	WORK=$each "$TOP/scripts/configure-kernel.sh" "$flavour"
	cp "$each/build-$flavour/.config" "$each/build-$flavour/config.top"
done

n=0
fails=()
for c in "${commits[@]}"; do
	n=$((n + 1))
	[ "$n" -ge "${EACH_FROM:-1}" ] || continue
	git -C "$tree" checkout -q --detach "$c"
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	for flavour in "${flavours[@]}"; do
		cp "$each/build-$flavour/config.top" "$each/build-$flavour/.config"
		log "each: patch $n/${#commits[@]} ($flavour): $subject"
		if ! WORK=$each "$TOP/scripts/build-kernel.sh" "$flavour"; then
			fails+=("patch $n ($flavour): $subject")
		fi
	done
done
if [ ${#fails[@]} -gt 0 ]; then
	printf '%s\n' "${fails[@]}" >&2
	die "${#fails[@]} builds failed"
fi
log "each: patches ${EACH_FROM:-1}-${#commits[@]} of ${#commits[@]} build (${flavours[*]})"
