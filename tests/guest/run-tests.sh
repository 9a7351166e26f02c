#!/usr/bin/env bash
# Runs inside the guest: every test of a list, each under its own timeout,
# as one KTAP document on stdout (test output indented with "# ").
#
# usage: run-tests.sh LIST OUTDIR
# LIST lines: NAME CASES TIMEOUT COMMAND...   (# comments allowed)
# CASES (the number of nested KTAP results, or "-") is checked by the host's
# verdict, not here.
# TIMEOUT: seconds, or "-" for a kselftest: the timeout= of the `settings`
# file in the test's directory (45 s without one), as the kselftest runner
# (kselftest/runner.sh) applies it.
# COMMAND runs from the repo top with KSRC (patched kernel tree), KSFT (the
# installed kselftests: work/kselftest) and OUTDIR exported. Exit codes
# follow kselftest: 0 pass, 4 skip, else fail.
set -u
list=$1
export OUTDIR=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP KSRC=${KSRC:-$TOP/work/linux} KSFT=${KSFT:-$TOP/work/kselftest}
# the distribution's python3 has the yaml/jsonschema modules the YNL library needs
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# newer tools than the distribution's, for the base's tests (fetch-tools.sh)
[ -n "${TOOLS_BIN:-}" ] && PATH=$TOOLS_BIN:$PATH
# the tree is read-only in the guest; never litter it with bytecode
export PYTHONDONTWRITEBYTECODE=1
cd "$TOP" || exit 1

# settings_timeout PROGRAM: the kselftest runner's timeout for PROGRAM
settings_timeout()
{
	local settings
	settings="$(dirname "$1")/settings"
	if [ -r "$settings" ] && grep -q '^timeout=[0-9][0-9]*$' "$settings"; then
		sed -n 's/^timeout=//p' "$settings" | tail -n1
	else
		echo 45
	fi
}

mapfile -t tests < <(grep -v -e '^\s*#' -e '^\s*$' "$list")
echo "TAP version 13"
echo "1..${#tests[@]}"
[ -n "${TOOLS_BIN:-}" ] && echo "# newer tools first in PATH: $TOOLS_BIN ($(ethtool --version 2>&1))"
n=0
for line in "${tests[@]}"; do
	read -r name cases tmo cmd <<<"$line"
	n=$((n + 1))
	if [ "$tmo" = - ]; then
		# the program: the first word that is not a VAR=value
		prog=$(for w in $cmd; do [[ $w == *=* ]] || { eval echo "$w"; break; }; done)
		tmo=$(settings_timeout "$prog")
	fi
	if ! [[ $cases =~ ^([0-9]+|-)$ && $tmo =~ ^[0-9]+$ && -n $cmd ]]; then
		echo "# bad list line (NAME CASES TIMEOUT COMMAND): $line"
		echo "not ok $n $name # bad list line"
		continue
	fi
	echo "# RUN $name ($cases cases, timeout ${tmo}s): $cmd"
	start=$(date +%s)
	timeout -k 10 "$tmo" bash -c "$cmd" > "$OUTDIR/$name.log" 2>&1 < /dev/null
	rc=$?
	sed 's/^/# /' "$OUTDIR/$name.log"
	echo "# $name: exit code $rc after $(( $(date +%s) - start ))s"
	case $rc in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP $(grep -i skip "$OUTDIR/$name.log" | tail -n1 | sed 's/^[# ]*//')" ;;
	124|137) echo "not ok $n $name # TIMEOUT ${tmo}s" ;;
	*) echo "not ok $n $name # exit code $rc" ;;
	esac
done
