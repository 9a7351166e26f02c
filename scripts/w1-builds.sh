#!/usr/bin/env bash
# usage: w1-builds.sh
# netdev CI's W=1 builds (build_allmodconfig_warn, build_clang, ...),
# reduced to what a patch can change: for every commit of the series, the
# C files it touches that the debug flavour compiles are built with W=1
# before the commit and after it, with knapid on (the debug flavour's
# .config) and off (nothreaded: a helper only one side of an #ifdef uses
# warns there), and a commit fails when a build has a warning after it
# that it did not have before. NIPA's build_32bit, reduced: the same files
# at W=1 for i386 (the debug fragments without CONFIG_64BIT, each option
# checked as configure-kernel.sh does) at the base and at the top of the
# series only, not per commit (W1_I386=0 skips it). A header a patch changes is
# covered through the C files the same patch touches only (NIPA rebuilds
# the whole tree; this stays in minutes). A worktree of its own
# ($WORK/w1) is used, so $LINUX is left alone; the objects go through
# ccache, which replays a cached file's warnings.
# W1_FLAVOURS overrides the flavours ("debug nothreaded").
# Prints a line per commit; exits 1 when a commit adds a warning.
set -euo pipefail
. "$(dirname "$0")/common.sh"

w1=$WORK/w1
tree=$w1/linux
read -r -a flavours <<<"${W1_FLAVOURS:-debug nothreaded}"
git -C "$LINUX" rev-parse -q --verify base >/dev/null ||
	die "no work tree: run make apply"
[ -f "$WORK/build-debug/.config" ] || die "no $WORK/build-debug/.config: run make build-debug"
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no commits on top of base in $LINUX"
worktree_at "$tree"

kbuild_env "$w1"

# kmake BUILD TARGET... (build-i386 for ARCH=i386, any other for x86_64)
kmake()
{
	local b=$1 arch=x86_64

	shift
	[ "${b##*/}" = build-i386 ] && arch=i386
	make -C "$tree" O="$b" ARCH=$arch CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(($(nproc) + 1))" "$@"
}

# Each flavour's .config at the top of the series, put back before every
# build (Kconfig drops an option at a commit that does not have it yet):
# the debug flavour's is the one make build-debug built with; the others
# are configured here, in the worktree at the series' last commit.
start=$(date +%s)
rm -rf "$w1/logs"
mkdir -p "$w1/logs"
git -C "$tree" checkout -q --detach "${commits[-1]}"
for f in "${flavours[@]}"; do
	mkdir -p "$w1/build-$f"
	if [ "$f" = debug ]; then
		cp "$WORK/build-debug/.config" "$w1/build-$f/config.top"
	else
		rm -f "$w1/build-$f/fragments.config"
		WORK=$w1 "$TOP/scripts/configure-kernel.sh" "$f"
		cp "$w1/build-$f/.config" "$w1/build-$f/config.top"
	fi
done
if [ "${W1_I386:-1}" = 1 ]; then
	b=$w1/build-i386
	mkdir -p "$b"
	{
		grep -v '^CONFIG_64BIT=' "$TOP/configs/base.config"
		cat "$TOP/configs/base-$KBASE.config" "$TOP"/configs/feature-*.config "$TOP/configs/debug.config"
	} > "$b/fragments.config"
	kmake "$b" KCONFIG_ALLCONFIG="$b/fragments.config" allnoconfig > "$w1/logs/i386-config.log" 2>&1 ||
		die "w1: the i386 configuration failed ($w1/logs/i386-config.log)"
	grep -q '^CONFIG_X86_32=y' "$b/.config" || die "w1: the i386 configuration is not 32-bit ($b/.config)"
	# every option the fragments ask for, as on x86_64 (configure-kernel.sh)
	"$TOP/scripts/check-config.py" "$b/.config" "$b/fragments.config" >&2 ||
		die "w1: the i386 configuration drops options of the fragments ($b/.config)"
	cp "$b/.config" "$b/config.top"
fi
git -C "$tree" checkout -q --detach base

# w1_warnings LOG FILE.c...: build the objects of the files with W=1 in
# every flavour (from scratch: their .o removed first) and print every
# warning, sorted, as "FLAVOUR PATH: warning: TEXT" (PATH in the tree, no
# line number: a patch moves lines): the compiler's, objtool's ("x.o:
# warning: objtool: ...") and kernel-doc's (7.3's prints "Warning: PATH:N
# TEXT"). A flavour whose .config Kconfig resolves to an earlier one's at
# this commit (before the series adds CONFIG_THREADED_NAPI, debug and
# nothreaded are the same kernel) is not built again: the earlier one's
# warnings count for it. Each build's whole output in
# $w1/logs/LOG-FLAVOUR.log; when one fails, its tail goes to stdout and
# the function returns 1.
w1_warnings()
{
	local log=$1 f b o same
	local -A warnings=()

	shift
	for f in "${flavours[@]}"; do
		b=$w1/build-$f
		cp "$b/config.top" "$b/.config"
		: > "$w1/logs/$log-$f.log"
		w1_make "$f" configuration "$log" olddefconfig || return 1
		if same=$(same_config "$w1" "$f" "${!warnings[@]}"); then
			echo "same .config as $same here: its warnings count" >> "$w1/logs/$log-$f.log"
			warnings[$f]=$(sed "s|^$same |$f |" <<<"${warnings[$same]}")
			continue
		fi
		for o in "${@/%.c/.o}"; do
			rm -f "${b:?}/$o"
		done
		w1_make "$f" build "$log" W=1 "${@/%.c/.o}" || return 1
		warnings[$f]=$(sed -n -E -e 's|^([^ :]+):[0-9]+:([0-9]+:)? warning: |\1: warning: |p' \
			-e 's|^([^ :]+\.o): warning: |\1: warning: |p' \
			-e 's|^Warning: ([^ :]+):[0-9]+ |\1: warning: |p' "$w1/logs/$log-$f.log" |
			sed -E "s|^${tree}/||; s|^(\\.\\./)+(linux/)?||; s|^|$f |")
	done
	printf '%s\n' "${warnings[@]}" | grep . | sort || true
}

# w1_kept LOG FILE.c...: w1_warnings, or the output it gave before for the
# same tree (the worktree's HEAD), files and flavours' .configs
# (result_key, common.sh)
w1_kept()
{
	local log=$1 key f parts=() out

	parts=(w1 "$(git -C "$tree" rev-parse 'HEAD^{tree}')" "${@:2}")
	for f in "${flavours[@]}"; do
		parts+=("$f" "@$w1/build-$f/config.top")
	done
	key=$(result_key "${parts[@]}")
	if out=$(result_get "$key"); then
		for f in "${flavours[@]}"; do
			echo "the output of an earlier build of the same inputs ($LINT_RESULTS/$key)" > "$w1/logs/$log-$f.log"
		done
		echo "$log" >> "$w1/logs/kept"
		[ -z "$out" ] || printf '%s\n' "$out"
		return 0
	fi
	out=$(w1_warnings "$@") || { printf '%s\n' "$out"; return 1; }
	result_put "$key" "$out"
	[ -z "$out" ] || printf '%s\n' "$out"
}

# w1_make FLAVOUR WHAT LOG TARGET...: kmake in FLAVOUR's build dir, appended
# to logs/LOG-FLAVOUR.log; on failure says that FLAVOUR's WHAT failed
w1_make()
{
	local f=$1 what=$2 out=$w1/logs/$3-$1.log

	shift 3
	kmake "$w1/build-$f" "$@" >> "$out" 2>&1 && return 0
	echo "the $f $what failed ($out):"
	tail -30 "$out"
	return 1
}

failed=0
n=0
declare -A touched=()
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$(git -C "$LINUX" log -1 --format=%s "$c")
	files=()
	while read -r f; do
		# only what the debug flavour compiles (its object exists)
		[ -e "$WORK/build-debug/${f%.c}.o" ] && files+=("$f")
	done < <(git -C "$LINUX" diff-tree --no-commit-id --name-only --diff-filter=AM -r "$c" -- '*.c' |
		grep -v -E '^(tools|scripts|samples|Documentation)/' || true)
	if [ ${#files[@]} = 0 ]; then
		git -C "$tree" checkout -q --detach "$c"
		echo "patch $n/${#commits[@]}: no C file of the kernel build: $subject"
		continue
	fi
	for f in "${files[@]}"; do
		touched[$f]=1
	done
	log "w1: patch $n/${#commits[@]}: ${files[*]} (${flavours[*]})"
	# before it: the files that exist there (a file the commit adds has
	# no warning before it, so all of its warnings are new)
	old=()
	for f in "${files[@]}"; do
		git -C "$tree" cat-file -e "HEAD:$f" 2>/dev/null && old+=("$f")
	done
	before=
	if [ ${#old[@]} -gt 0 ] && ! before=$(w1_kept "$n-before" "${old[@]}"); then
		# a tree that did not build before it was counted at the commit
		# that broke it: not this one's fault
		echo "patch $n/${#commits[@]}: the W=1 build before it failed: $subject"
		sed 's/^/  /' <<<"$before"
		git -C "$tree" checkout -q --detach "$c"
		continue
	fi
	git -C "$tree" checkout -q --detach "$c"
	if ! after=$(w1_kept "$n-after" "${files[@]}"); then
		echo "patch $n/${#commits[@]}: the W=1 build failed: $subject"
		sed 's/^/  /' <<<"$after"
		failed=$((failed + 1))
		continue
	fi
	new=$(new_warnings "$before" "$after")
	if [ -n "$new" ]; then
		echo "patch $n/${#commits[@]}: new W=1 warnings in ${files[*]}: $subject"
		sed 's/^/  /' <<<"$new"
		failed=$((failed + 1))
	else
		echo "patch $n/${#commits[@]}: W=1 ${files[*]} (${flavours[*]}): $(grep -c . <<<"$after" || true) warnings, none new: $subject"
	fi
done


# i386: every file the series touched, at the base and at the top
if [ "${W1_I386:-1}" = 1 ] && [ ${#touched[@]} -gt 0 ]; then
	mapfile -t files < <(printf '%s\n' "${!touched[@]}" | sort)
	flavours=(i386)
	log "w1: i386 at the base and the top: ${files[*]}"
	git -C "$tree" checkout -q --detach base
	old=()
	for f in "${files[@]}"; do
		git -C "$tree" cat-file -e "HEAD:$f" 2>/dev/null && old+=("$f")
	done
	before=
	if [ ${#old[@]} -gt 0 ] && ! before=$(w1_kept i386-before "${old[@]}"); then
		echo "i386: the W=1 build at the base failed"
		sed 's/^/  /' <<<"$before"
		failed=$((failed + 1))
	else
		git -C "$tree" checkout -q --detach "${commits[-1]}"
		if ! after=$(w1_kept i386-after "${files[@]}"); then
			echo "i386: the W=1 build at the top of the series failed"
			sed 's/^/  /' <<<"$after"
			failed=$((failed + 1))
		elif new=$(new_warnings "$before" "$after") && [ -n "$new" ]; then
			echo "i386: new W=1 warnings at the top of the series in ${files[*]}"
			sed 's/^/  /' <<<"$new"
			failed=$((failed + 1))
		else
			echo "i386: W=1 ${files[*]} at the base and the top: $(grep -c . <<<"$after" || true) warnings, none new"
		fi
	fi
fi
log "w1: ${#commits[@]} commits in $(( $(date +%s) - start ))s, $failed with new warnings or a failed build; $(grep -c . "$w1/logs/kept" 2>/dev/null || echo 0) of the builds replayed from $LINT_RESULTS"
[ $failed = 0 ]
