#!/usr/bin/env bash
# usage: own-machine.sh PKGDIR
# The commands of docs/own-machine.md, run on the kernel of a
# `make deb` package (PKGDIR: work/deb/NAME, its linux-image unpacked; the
# guest boots unpacked/boot/vmlinuz-RELEASE with threaded_napi=off) and on
# the unpacked kselftest tarball: the commands a user types after dpkg -i
# and a reboot, each checked for what it must do.
. "$(dirname "$0")/lib.sh"

pkg=${1:?usage: own-machine.sh PKGDIR}
want_rel=$(cat "$pkg/kernelrelease")
NSIM_ID=77
SYSCTL=/proc/sys/net/core/knapid_enabled

cleanup() {
	[ -e /sys/bus/netdevsim/devices/netdevsim$NSIM_ID ] &&
		echo $NSIM_ID > /sys/bus/netdevsim/del_device
}
trap cleanup EXIT

ktap_print_header
ktap_set_plan 6

rel=$(uname -r)
echo "# uname -r: $rel; package: $want_rel"
if [ "$rel" = "$want_rel" ] && grep -qx CONFIG_THREADED_NAPI=y "$pkg/unpacked/boot/config-$want_rel"; then
	ktap_test_pass "the guest runs the packaged kernel $want_rel"
else
	ktap_test_fail "the guest runs the packaged kernel $want_rel (uname -r: $rel)"
fi

# the boot parameter, as docs/own-machine.md puts it on the kernel command line
echo "# /proc/cmdline: $(cat /proc/cmdline)"
echo "# sysctl net.core.knapid_enabled: $(sysctl -n net.core.knapid_enabled 2>&1)"
if grep -qw threaded_napi=off /proc/cmdline && [ "$(sysctl -n net.core.knapid_enabled)" = 0 ]; then
	ktap_test_pass "threaded_napi=off on the command line: knapid_enabled is 0 at boot"
else
	ktap_test_fail "threaded_napi=off on the command line: knapid_enabled is 0 at boot"
fi

threads=$(ps -e -o comm= | grep -c '^knapid/')
echo "# ps -e -o comm | grep knapid: $threads threads, $(nproc) CPUs"
ktap_test_result "one knapid/N thread per CPU" [ "$threads" = "$(nproc)" ]

on=$(sysctl -w net.core.knapid_enabled=1 2>&1) && on_val=$(cat $SYSCTL)
off=$(sysctl -w net.core.knapid_enabled=0 2>&1) && off_val=$(cat $SYSCTL)
echo "# $on -> $on_val; $off -> $off_val"
ktap_test_result "sysctl -w net.core.knapid_enabled=1, then =0" \
	[ "${on_val:-}/${off_val:-}" = 1/0 ]

# per-NAPI values with the YNL CLI, from the kernel tree, as docs/own-machine.md
# shows them (netdevsim stands in for the host's NIC); a subshell, for its cd
napi_set_get() (
	local dev ifindex id out
	[ -d /sys/bus/netdevsim ] || modprobe netdevsim || return 1
	echo "$NSIM_ID 1 2" > /sys/bus/netdevsim/new_device || return 1
	udevadm settle # udev renames the new netdev
	dev=$(ls /sys/bus/netdevsim/devices/netdevsim$NSIM_ID/net/) || return 1
	ip link set "$dev" up || return 1
	ifindex=$(cat /sys/class/net/"$dev"/ifindex)
	cd "$KSRC" || return 1
	out=$(./tools/net/ynl/cli.py --spec Documentation/netlink/specs/netdev.yaml \
		--dump napi-get --json "{\"ifindex\": $ifindex}") || return 1
	echo "$out" | sed 's/^/# napi-get: /'
	id=$(grep -o "'id': [0-9]*" <<<"$out" | head -n 1 | grep -o '[0-9]*$')
	[ -n "$id" ] || return 1
	./tools/net/ynl/cli.py --spec Documentation/netlink/specs/netdev.yaml \
		--do napi-set --json "{\"id\": $id, \"defer-hard-irqs\": 100, \"gro-flush-timeout\": 20000, \"irq-suspend-timeout\": 2000000}" \
		> /dev/null || return 1
	out=$(./tools/net/ynl/cli.py --spec Documentation/netlink/specs/netdev.yaml \
		--do napi-get --json "{\"id\": $id}") || return 1
	echo "$out" | sed "s/^/# napi-get $id after napi-set: /"
	grep -q "'defer-hard-irqs': 100" <<<"$out" &&
		grep -q "'gro-flush-timeout': 20000" <<<"$out" &&
		grep -q "'irq-suspend-timeout': 2000000" <<<"$out"
)
ktap_test_result "napi-set over the YNL CLI, read back with napi-get" napi_set_get
cleanup

# a test of the tarball through its own runner, the way docs/own-machine.md runs it
out=$(cd "$KSFT" && ./run_kselftest.sh -t drivers/net:napi_config.py 2>&1)
echo "$out" | grep -E '^(not )?ok|^# (not )?ok' | sed 's/^/# /'
desc="./run_kselftest.sh -t drivers/net:napi_config.py from the kselftest tarball"
# exactly "ok": "ok 1 ... # SKIP" is what a tarball without the YNL library gives
if grep -qx 'ok 1 selftests: drivers/net: napi_config.py' <<<"$out"; then
	ktap_test_pass "$desc"
else
	ktap_test_fail "$desc"
fi
ktap_finished
