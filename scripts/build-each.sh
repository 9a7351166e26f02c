#!/usr/bin/env bash
# usage: build-each.sh [FLAVOUR...]   (default: debug nothreaded)
# EACH_FROM=N starts at patch N of the series (default 1).
# Build every commit of the series on its own (each patch must build), in a
# separate worktree under $WORK/each so work/linux is left alone. Each
# flavour is configured once at the top of the series; that .config is put
# back before every build, so options that appear later in the series (and
# that Kconfig drops at earlier commits) come back when they exist.
# The default flavours differ only in CONFIG_THREADED_NAPI (knapid on, off):
# at a commit where Kconfig resolves two flavours to the same .config (before
# the option exists), the second is not built again.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(debug nothreaded)
each=$WORK/each
tree=$each/linux

git -C "$LINUX" rev-parse -q --verify base >/dev/null || die "no work tree: run make apply"
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no commits on top of base in $LINUX"
worktree_at "$tree"
git -C "$tree" checkout -q --detach "${commits[-1]}"

for flavour in "${flavours[@]}"; do
	# builds at earlier commits rewrote .config: configure afresh
	rm -f "$each/build-$flavour/fragments.config"
	WORK=$each "$TOP/scripts/configure-kernel.sh" "$flavour"
	cp "$each/build-$flavour/.config" "$each/build-$flavour/config.top"
done

each_start=$(date +%s)
n=0
fails=()
for c in "${commits[@]}"; do
	n=$((n + 1))
	[ "$n" -ge "${EACH_FROM:-1}" ] || continue
	git -C "$tree" checkout -q --detach "$c"
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	built=()
	for flavour in "${flavours[@]}"; do
		b=$each/build-$flavour
		cp "$b/config.top" "$b/.config"
		make -s -C "$tree" O="$b" ARCH=x86_64 olddefconfig >/dev/null
		if same=$(same_config "$each" "$flavour" "${built[@]}"); then
			log "each: patch $n/${#commits[@]} ($flavour): same .config as $same at this commit, not built again"
			continue
		fi
		log "each: patch $n/${#commits[@]} ($flavour): $subject"
		if ! WORK=$each "$TOP/scripts/build-kernel.sh" "$flavour"; then
			fails+=("patch $n ($flavour): $subject")
		fi
		built+=("$flavour")
	done
done
if [ ${#fails[@]} -gt 0 ]; then
	printf '%s\n' "${fails[@]}" >&2
	die "${#fails[@]} builds failed"
fi
log "each: patches ${EACH_FROM:-1}-${#commits[@]} of ${#commits[@]} build (${flavours[*]}) in $(( $(date +%s) - each_start ))s"
