#!/usr/bin/env bash
# Install everything the harness needs on Debian 12. Idempotent: a second run
# only checks and returns in seconds.
set -euo pipefail
. "$(dirname "$0")/common.sh"

APT_PKGS=(
	build-essential flex bison bc libelf-dev libssl-dev cpio ccache
	qemu-system-x86 busybox-static iproute2 ethtool iperf3 socat
	python3-yaml python3-jsonschema python3-ply python3-pytest python3-venv python3-pip
	kmod udev iputils-ping procps util-linux git xz-utils rsync
	dpkg-dev file gawk python3-matplotlib python3-git
	# make deb: the kernel's bindeb-pkg checks its Build-Depends
	# (debhelper-compat); module signing keys (openssl); BTF for DEBUG_INFO=1
	debhelper openssl dwarves
	# make bench: request-response and open-loop load (sockperf), SCHED_FIFO
	# wakeup latency (cyclictest)
	sockperf rt-tests
	# make -C tools/testing/selftests TARGETS="net drivers/net": its C
	# programs (ncdevmem: libmnl), and its BPF objects (clang, libbpf)
	clang llvm libcap-dev libmnl-dev libnuma-dev zlib1g-dev pkg-config
	# make lint's netdev CI checks: shellcheck on the shell tests a patch
	# adds (nipa-checks.py)
	shellcheck
)
# virtme-ng is not in bookworm; pin the PyPI release the harness is tested with.
VIRTME_NG_VERSION=1.38
# make lint's netdev CI checks (lint-series.sh, nipa-checks.py): NIPA runs
# a current ruff and pylint, and checkpatch --codespell needs codespell's
# dictionary; bookworm's are too old or missing. Pinned PyPI releases.
LINT_PKGS=(ruff==0.17.6 pylint==4.1.4 codespell==2.4.3)

missing=()
for p in "${APT_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	log "apt: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	log "apt: all ${#APT_PKGS[@]} packages present"
fi

have=$("$VENV/bin/python3" -m pip show virtme-ng 2>/dev/null || true)
if [ -x "$VENV/bin/vng" ] && grep -qx "Version: $VIRTME_NG_VERSION" <<<"$have"; then
	log "virtme-ng $VIRTME_NG_VERSION present in $VENV"
else
	log "pip: installing virtme-ng==$VIRTME_NG_VERSION into $VENV"
	/usr/bin/python3 -m venv "$VENV"
	"$VENV/bin/python3" -m pip install -q "virtme-ng==$VIRTME_NG_VERSION"
fi
"$VENV/bin/vng" --version >/dev/null || die "vng does not run"
lint_missing=()
for p in "${LINT_PKGS[@]}"; do
	have=$("$VENV/bin/python3" -m pip show "${p%%==*}" 2>/dev/null || true)
	grep -qx "Version: ${p#*==}" <<<"$have" || lint_missing+=("$p")
done
if [ ${#lint_missing[@]} -gt 0 ]; then
	log "pip: installing ${lint_missing[*]} into $VENV"
	"$VENV/bin/python3" -m pip install -q "${lint_missing[@]}"
else
	log "${LINT_PKGS[*]} present in $VENV"
fi
log "dependencies ok"
