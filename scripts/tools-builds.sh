#!/usr/bin/env bash
# usage: tools-builds.sh
# netdev CI's build_tools, reduced to what the series can change: the
# selftests are built in the tree, as NIPA builds them, at the base and
# after every commit that touches what that build reads: tools/ and the
# uapi headers (NIPA skips commits outside tools/ and include/; these
# targets read no kernel header outside uapi but through its copy in
# tools/include, which a commit would touch too), and a commit fails when
# its build fails, prints a warning the build before it did not, or leaves a
# file that git status shows and did not before (a program missing from
# its .gitignore, a tracked file the build rewrites). NIPA builds every
# target; this builds $KSFT_TARGETS (common.sh), where all the series'
# tests are: a commit that touches another target fails, so the list
# grows with the series. Every build starts from a tree cleaned of the
# previous one's output (git clean -x), so each prints all of its
# warnings; the compilers go through ccache, which replays them. A
# worktree of its own ($WORK/tools-builds/linux) leaves $LINUX alone.
# Prints a line per commit; exits 1 when a commit fails.
set -euo pipefail
. "$(dirname "$0")/common.sh"

dir=$WORK/tools-builds
tree=$dir/linux
git -C "$LINUX" rev-parse -q --verify base >/dev/null ||
	die "no work tree: run make apply"
mapfile -t commits < <(git -C "$LINUX" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no commits on top of base in $LINUX"
worktree_at "$tree"
kbuild_env "$dir"
rm -rf "$dir/logs"
mkdir -p "$dir/logs"
read -r -a targets <<<"$KSFT_TARGETS"
# a selftests directory the check builds: a target, or what they share
listed="^($(tr ' ' '|' <<<"$KSFT_TARGETS")|lib|kselftest)/"

# ksft_build LOG: clean the tree's build output, build the uapi headers
# and the targets into logs/LOG.log, and print the build's warnings
# ("PATH: warning: TEXT", no line number: a patch moves lines) and then
# what git status shows, each line prefixed "status "; on failure print
# the log's tail and return 1
ksft_build()
{
	local log=$dir/logs/$1.log

	git -C "$tree" clean -q -x -d -f -- tools usr
	if ! { make -C "$tree" -s ARCH=x86_64 headers &&
		make -C "$tree/tools/testing/selftests" TARGETS="$KSFT_TARGETS" \
			CC="ccache gcc" HOSTCC="ccache gcc" -j"$(($(nproc) + 1))"; } > "$log" 2>&1; then
		echo "the build failed ($log):"
		tail -30 "$log"
		return 1
	fi
	# the kselftest Makefile fails only when every target failed: a
	# program that did not build shows in the log
	if grep -q -E '^make\[[0-9]+\]: \*\*\*|: error: ' "$log"; then
		echo "a program did not build ($log):"
		grep -E -B2 -A4 '^make\[[0-9]+\]: \*\*\*|: error: ' "$log" | tail -30
		return 1
	fi
	sed -n -E 's|^([^ :]+):[0-9]+:([0-9]+:)? warning: |\1: warning: |p' "$log" |
		sed -E "s|^${tree}/||" | sort
	git -C "$tree" status --porcelain=v1 --untracked-files=all |
		{ grep -v -x ' M .gitignore' || true; } | sed 's/^/status /' | sort
}

# ksft_kept LOG: ksft_build, or the output it gave before for the same
# tree (the worktree's HEAD) and targets (result_key, common.sh)
ksft_kept()
{
	local key out

	key=$(result_key tools "$(git -C "$tree" rev-parse 'HEAD^{tree}')" "$KSFT_TARGETS")
	if out=$(result_get "$key"); then
		echo "the output of an earlier build of the same inputs ($LINT_RESULTS/$key)" > "$dir/logs/$1.log"
		echo "$1" >> "$dir/logs/kept"
		[ -z "$out" ] || printf '%s\n' "$out"
		return 0
	fi
	out=$(ksft_build "$1") || { printf '%s\n' "$out"; return 1; }
	result_put "$key" "$out"
	[ -z "$out" ] || printf '%s\n' "$out"
}

# at C: the worktree at commit C, with upstream's top-level .gitignore:
# Debian's adds a block that ignores every top-level entry (`/*`, then
# `!/debian/`), under which git status would show no new file at all; the
# edit is the same at every commit, so its " M .gitignore" is dropped
at()
{
	git -C "$tree" checkout -q -f --detach "$1"
	sed -i -e '\|^/\*$|d' -e '\|^!/debian/$|d' "$tree/.gitignore"
}

# touches C PATTERN: C changes a path matching PATTERN (an ERE)
touches() { git -C "$LINUX" diff-tree --no-commit-id --name-only -r "$1" | grep -q -E "$2"; }

start=$(date +%s)
at base
# the status check's positive control: a new file in a target must show
for t in "${targets[@]}"; do
	! git -C "$tree" check-ignore -q "tools/testing/selftests/$t/tools_builds_probe" ||
		die "tools-builds: git ignores new files in tools/testing/selftests/$t ($(git -C "$tree" check-ignore -v "tools/testing/selftests/$t/tools_builds_probe")): the untracked-file check could not fail"
done
log "tools-builds: the selftests ($KSFT_TARGETS) at the base"
if ! before=$(ksft_kept base); then
	sed 's/^/  /' <<<"$before"
	die "tools-builds: the selftests do not build at the base"
fi
echo "base: $(grep -c ': warning: ' <<<"$before" || true) warnings"
failed=0
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	subject=$(git -C "$LINUX" log -1 --format=%s "$c")
	if ! touches "$c" '^(tools/|include/uapi/|arch/[^/]+/include/uapi/)'; then
		echo "patch $n/${#commits[@]}: no tools/ or uapi file: $subject"
		continue
	fi
	# a target outside the list: built nowhere here
	other=$(git -C "$LINUX" diff-tree --no-commit-id --name-only -r "$c" -- tools/testing/selftests |
		sed -n -E 's|^tools/testing/selftests/(.*)/[^/]+$|\1/|p' | sort -u |
		{ grep -v -E "$listed" || true; } | sed 's|/$||')
	if [ -n "$other" ]; then
		echo "patch $n/${#commits[@]}: touches selftests outside KSFT_TARGETS ($KSFT_TARGETS): $other: $subject"
		failed=$((failed + 1))
		continue
	fi
	log "tools-builds: patch $n/${#commits[@]}"
	at "$c"
	if ! after=$(ksft_kept "$n"); then
		echo "patch $n/${#commits[@]}: the selftests' build failed: $subject"
		sed 's/^/  /' <<<"$after"
		failed=$((failed + 1))
		continue
	fi
	new=$(new_warnings "$before" "$after")
	if [ -n "$new" ]; then
		echo "patch $n/${#commits[@]}: new warnings or files in the selftests' build: $subject"
		sed 's/^/  /' <<<"$new"
		failed=$((failed + 1))
	else
		echo "patch $n/${#commits[@]}: selftests built, $(grep -c ': warning: ' <<<"$after" || true) warnings, nothing new: $subject"
	fi
	before=$after
done
log "tools-builds: ${#commits[@]} commits in $(($(date +%s) - start))s, $failed failed; $(grep -c . "$dir/logs/kept" 2>/dev/null || echo 0) of the builds replayed from $LINT_RESULTS"
[ $failed = 0 ]
