# shellcheck shell=bash
# Sourced by bench/run.sh and bench/vt.sh.

# bench_guest NAME CMD APPEND QEMU_OPTS [WRAPPER...]: scripts/run-guest.sh
# on the $flavour kernel into $out (timeout $tmo) in the background, as
# $pid for the caller's trap, logged in commands.txt; a progress line every
# 30 s from $out/progress-NAME.log; then sets rc to the guest's exit code
# and moves its console to console-NAME.log
# shellcheck disable=SC2154,SC2034 # out, tmo, flavour: the caller's; rc: for it
bench_guest() {
	local name=$1 cmd=$2 append=$3 qemu=$4 t0
	shift 4
	echo "$* scripts/run-guest.sh $flavour $out $tmo '$cmd' '$append' '$qemu'" >> "$out/commands.txt"
	"$@" "$TOP/scripts/run-guest.sh" "$flavour" "$out" "$tmo" "$cmd" "$append" "$qemu" &
	pid=$!
	t0=$(date +%s)
	while kill -0 "$pid" 2>/dev/null; do
		sleep 30
		log "bench $name, $(($(date +%s) - t0))s: $(tail -n 1 "$out/progress-$name.log" 2>/dev/null || echo booting)"
	done
	wait "$pid"
	rc=$?
	pid=
	mv "$out/console.log" "$out/console-$name.log"
}
