#!/usr/bin/env bash
# usage: configure-kernel.sh FLAVOUR   (release | debug | nothreaded | stress | rt)
# Write $WORK/build-FLAVOUR/.config = allnoconfig + the flavour's fragments,
# then check that every requested option made it.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:?usage: configure-kernel.sh release|debug|nothreaded|stress|rt}
B=$WORK/build-$flavour
frags=("$TOP/configs/base.config" "$TOP/configs/base-$KBASE.config")
late=()
free=()
for f in "$TOP"/configs/feature-*.config; do
	[ -e "$f" ] && frags+=("$f")
done
case $flavour in
release) frags+=("$TOP/configs/release.config") ;;
debug) frags+=("$TOP/configs/debug.config") ;;
# the debug options too: the build then differs from the debug one only where
# CONFIG_THREADED_NAPI matters, and ccache serves everything else
nothreaded) frags+=("$TOP/configs/debug.config" "$TOP/configs/nothreaded.config") ;;
# make stress: the debug options and KASAN
stress) frags+=("$TOP/configs/debug.config" "$TOP/configs/stress.config") ;;
# 7.3's PREEMPT_RT boot of make check: the debug options, then PREEMPT_RT on
# top (olddefconfig: allnoconfig with EXPERT set would turn off every option
# EXPERT makes visible, PRINTK and SHMEM among them)
# CONFIG_THREADED_NAPI stays requested (feature-knapid.config) and is left
# to Kconfig, which drops it (it depends on !PREEMPT_RT): the rt boot's
# knapid-boot case checks in the guest that the kernel has no knapid
rt)
	frags+=("$TOP/configs/debug.config")
	late=("$TOP/configs/rt.config")
	free=(CONFIG_THREADED_NAPI)
	;;
*) die "unknown flavour $flavour" ;;
esac

mkdir -p "$B"
cat "${frags[@]}" "${late[@]}" > "$B/fragments.new"
if [ -f "$B/.config" ] && cmp -s "$B/fragments.new" "$B/fragments.config"; then
	log "config $flavour: unchanged"
	rm "$B/fragments.new"
	# the tree's Kconfig may have changed: check what the build will use
	make -s -C "$LINUX" O="$B" ARCH=x86_64 olddefconfig >"$B/config.log" 2>&1 ||
		{ cat "$B/config.log"; die "kconfig failed"; }
else
	mv "$B/fragments.new" "$B/fragments.config"
	log "config $flavour: allnoconfig + ${frags[*]##*/}"
	cat "${frags[@]}" > "$B/allnoconfig.config"
	make -s -C "$LINUX" O="$B" ARCH=x86_64 KCONFIG_ALLCONFIG="$B/allnoconfig.config" allnoconfig >"$B/config.log" 2>&1 ||
		{ cat "$B/config.log"; die "kconfig failed"; }
	if [ ${#late[@]} -gt 0 ]; then
		log "config $flavour: + ${late[*]##*/} (olddefconfig)"
		cat "${late[@]}" >> "$B/.config"
		make -s -C "$LINUX" O="$B" ARCH=x86_64 olddefconfig >>"$B/config.log" 2>&1 ||
			{ cat "$B/config.log"; die "kconfig failed"; }
	fi
fi
"$TOP/scripts/check-config.py" "${free[@]/#/--free=}" "$B/.config" "${frags[@]}" "${late[@]}" ||
	{ rm -f "$B/fragments.config"; die "config $flavour: fragments not honoured"; }
log "config $flavour: all $(cat "${frags[@]}" "${late[@]}" | grep -cE '^(CONFIG_|# CONFIG_)') requested options set${free[*]:+ but ${free[*]}, left to Kconfig}"
for opt in "${free[@]}"; do
	log "config $flavour: $(grep -E "^($opt=|# $opt is not set)" "$B/.config" || echo "$opt not in .config (its dependencies unmet)")"
done
