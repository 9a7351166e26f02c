#!/usr/bin/env bash
# `make check`: lint the series, boot the debug kernel once per boot group of
# the test list, run the tests in the guest, scan for splats, and judge
# everything from the KTAP ourselves.
# usage: check.sh [FLAVOUR] [LIST]
#
# LIST: "NAME CASES TIMEOUT COMMAND" lines (CASES: the number of nested KTAP
# results the test must report, "-" for none); a line "[boot ARGS...]" starts
# a new group that runs in its own guest booted with ARGS on the kernel
# command line; "[boot ARGS | QEMU OPTIONS]" also gives that guest extra QEMU
# options (NICs); "[boot@FLAVOUR ...]" boots the FLAVOUR kernel (e.g.
# nothreaded, built without CONFIG_THREADED_NAPI) instead of FLAVOUR.
#
# Environment: the results go to CHECK_OUT (default
# $WORK/results/check-FLAVOUR; WORK: scripts/common.sh); RUN_GUEST
# (default scripts/run-guest.sh, same arguments) boots a guest and LINT
# (default scripts/lint-series.sh) prints the checkpatch KTAP: the harness
# self-tests put stubs in their place; CHECK_LINT=no leaves the lint step
# out (make stress: its campaign tests the kernel, not the patches, and
# needs no debug build). GUEST_TIMEOUT (seconds, default 2400) and
# GUEST_APPEND (extra kernel command line) go to every guest.
set -uo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:-debug}
# the test list of the base: tests/check.list (6.12), tests/check-7.3.list
list=${2:-$TOP/tests/check.list}
[ -n "${2:-}" ] || [ "$KBASE" = 6.12 ] || list=$TOP/tests/check-$KBASE.list
run_guest=${RUN_GUEST:-$TOP/scripts/run-guest.sh}
lint=${LINT:-$TOP/scripts/lint-series.sh}
out=${CHECK_OUT:-$WORK/results/check-$flavour}
ktaps=()
lint_pid=

# The last line is always the verdict "N passed, N failed, N skipped", and it
# comes from ktap-verdict.py over all the KTAP written so far.
judge() {
	local verdict rc
	log "check: verdict (results in $out)"
	verdict=$("$TOP/scripts/ktap-verdict.py" --expect "$out/expected" \
		--allow-skips "$TOP/tests/allowed-skips" "${ktaps[@]}")
	rc=$?
	printf '%s\n' "$verdict" | tee "$out/verdict.txt"
	if ! tail -n 1 <<<"$verdict" | grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'; then
		echo "ktap-verdict.py failed with exit code $rc"
		echo "0 passed, 1 failed, 0 skipped"
		rc=1
	fi
	exit $rc
}

# A step that stops this script early (die, an error of the script itself,
# a signal) is a failure of its own, judged with everything else.
stopped_early() {
	local rc=$?
	trap - EXIT
	# a lint step still running is stopped with its builds
	[ -n "${lint_pid:-}" ] && kill_tree "$lint_pid"
	log "check: stopped early with exit code $rc"
	[ -f "$out/expected" ] || : > "$out/expected"
	printf 'TAP version 13\n1..1\nnot ok 1 check-completed # stopped early with exit code %s\n' \
		"$rc" > "$out/stopped.ktap"
	ktaps+=("$out/stopped.ktap")
	judge
}
trap stopped_early EXIT

rm -rf "$out"
mkdir -p "$out" || die "cannot create $out"

# CHECK_FULL=1 (make check-full): also the tests of the list's -full
# companion (tests/check-full.list, tests/check-7.3-full.list), which
# make check leaves out to keep its time
if [ "${CHECK_FULL:-0}" = 1 ] && [ -f "${list%.list}-full.list" ]; then
	cat "$list" "${list%.list}-full.list" > "$out/full.list"
	list=$out/full.list
fi

# the newer user-space tools the base's tests need (fetch-tools.sh), first
# in the guest's PATH
tools=
if [ "$KBASE" != 6.12 ]; then
	tools=$("$TOP/scripts/fetch-tools.sh") || die "fetch-tools.sh failed"
fi

# The lint step (checkpatch, netdev CI's checks, the W=1 builds: minutes
# of host CPU) runs beside the guests at nice 19, so a guest's vCPU
# threads take the CPU whenever they want it; its exit code is judged from
# the KTAP by the verdict below, its progress goes to lint.log
with_lint=yes
[ "${CHECK_LINT:-yes}" != no ] || with_lint=no
if [ $with_lint = yes ]; then
	log "check: lint of the series beside the guests (nice 19; progress in $out/lint.log)"
	start_low "$out/lint.ktap" "$out/lint.log" "$lint"
	lint_pid=$low_pid
fi

# wait_lint: wait for the lint step and show its results (its log too when
# it failed)
wait_lint() {
	local pid=$lint_pid

	[ -n "$pid" ] || return 0
	log "check: waiting for the lint step"
	lint_pid=
	# its exit code is judged from the KTAP (the verdict)
	wait_low "$pid" "$out/lint.log" "the lint step" || :
	grep -E '^(not )?ok ' "$out/lint.ktap" >&2
	return 0
}

# split the list into boot groups: boot-N/tests.list and boot-N/append
g=0
mkdir -p "$out/boot-0"
: > "$out/boot-0/tests.list"
: > "$out/boot-0/append"
while IFS= read -r line; do
	case $line in
	'['boot*']')
		g=$((g + 1))
		mkdir -p "$out/boot-$g"
		: > "$out/boot-$g/tests.list"
		line=${line#\[boot}
		line=${line%\]}
		# "[boot@FLAVOUR ...]": this group boots another kernel
		if [ "${line:0:1}" = @ ]; then
			gflavour=${line%%[ |]*}
			echo "${gflavour#@}" > "$out/boot-$g/flavour"
			line=${line#"$gflavour"}
		fi
		# "[boot ARGS | QEMU OPTIONS]": extra devices for this guest
		echo "${line%%|*}" | sed 's/^ *//; s/ *$//' > "$out/boot-$g/append"
		case $line in
		*'|'*) echo "${line#*|}" | sed 's/^ *//' > "$out/boot-$g/qemu" ;;
		esac
		;;
	*) echo "$line" >> "$out/boot-$g/tests.list" ;;
	esac
done < <(grep -v -e '^\s*#' -e '^\s*$' "$list")

{
	if [ $with_lint = yes ]; then
		series_patches | sed 's/^/checkpatch /; s/$/ -/'
		# shellcheck disable=SC2046 # one check per word
		printf '%s -\n' $(lint_series_checks)
	fi
	cat "$out"/boot-*/tests.list | awk '{print $1, $2}'
} > "$out/expected"
[ $with_lint = no ] || ktaps+=("$out/lint.ktap")
n=0
for dir in "$out"/boot-*; do
	[ -s "$dir/tests.list" ] || continue
	b=${dir##*-}
	kernel=$flavour
	[ -f "$dir/flavour" ] && kernel=$(cat "$dir/flavour")
	# a kernel built with kmemleak must have scanned for leaks in every
	# boot (without a .config to tell, it is taken to have kmemleak)
	config=$WORK/build-$kernel/.config
	kmemleak=yes
	[ -f "$config" ] && ! grep -q '^CONFIG_DEBUG_KMEMLEAK=y$' "$config" && kmemleak=no
	append="$(cat "$dir/append") ${GUEST_APPEND:-}"
	qemu=$(cat "$dir/qemu" 2>/dev/null)
	log "check: boot $b of the $kernel kernel (cmdline +'$append'${qemu:+, qemu +'$qemu'}): $(wc -l < "$dir/tests.list") tests"
	"$run_guest" "$kernel" "$dir" "${GUEST_TIMEOUT:-2400}" \
		"KBASE=$KBASE KSRC=$LINUX KSFT=$KSFT TOOLS_BIN=$tools $TOP/tests/guest/guest-main.sh $dir/tests.list $dir" "$append" "$qemu"
	guest_rc=$?

	# the host's own verdicts on this boot, as KTAP so one parser judges all
	{
		echo "TAP version 13"
		echo "1..3"
		# completed: the done marker written after the last step, and the
		# guest exited on its own with 0 (124: killed at the timeout)
		if [ -f "$dir/guest-done" ] && [ "$guest_rc" = 0 ]; then
			echo "ok 1 guest-completed-$b"
		else
			if [ -f "$dir/guest-done" ]; then
				echo "# the guest finished its test list but exited with code $guest_rc; see $dir/console.log"
			else
				echo "# the guest did not finish its test list (exit code $guest_rc); see $dir/console.log"
			fi
			tail -n 20 "$dir/console.log" 2>/dev/null | sed 's/^/# /'
			echo "not ok 1 guest-completed-$b # exit code $guest_rc"
		fi
		logs=("$dir/console.log")
		[ -f "$dir/dmesg.txt" ] && logs+=("$dir/dmesg.txt")
		# an empty kmemleak report means no leak
		[ -s "$dir/kmemleak.txt" ] && logs+=("$dir/kmemleak.txt")
		if "$TOP/scripts/scan-splats.py" "${logs[@]}" > "$dir/splats.txt"; then
			sed 's/^/# /' "$dir/splats.txt"
			echo "ok 2 splat-scan-$b"
		else
			sed 's/^/# /' "$dir/splats.txt"
			echo "not ok 2 splat-scan-$b"
		fi
		# "ok" from the guest's kmemleak-scan.sh, or why there was no scan
		status=$(head -n 1 "$dir/kmemleak-status" 2>/dev/null)
		if [ $kmemleak = no ]; then
			echo "# no CONFIG_DEBUG_KMEMLEAK=y in $config: no leak scan"
			echo "ok 3 kmemleak-$b"
		elif [ "$status" = ok ]; then
			echo "ok 3 kmemleak-$b"
		else
			echo "# no kmemleak scan to trust: ${status:-no $dir/kmemleak-status}"
			echo "not ok 3 kmemleak-$b"
		fi
	} > "$dir/host.ktap"
	cat "$dir/splats.txt" >&2
	[ -f "$dir/results.ktap" ] || : > "$dir/results.ktap"
	ktaps+=("$dir/results.ktap" "$dir/host.ktap")
	printf '%s -\n' "guest-completed-$b" "splat-scan-$b" "kmemleak-$b" >> "$out/expected"
	n=$((n + 1))
done
[ $n -gt 0 ] || die "no tests in $list"

wait_lint
trap - EXIT
judge
