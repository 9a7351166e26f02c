#!/usr/bin/env bash
# `make fresh-check`: prove the README's commands on a clean Debian 12 root.
#
# debootstrap --variant=minbase bookworm (the suites this machine's apt uses),
# copy in the machine's CA trust store, apt options and pip settings so the
# package registries answer, install only git and make, clone the committed
# HEAD of this repo into it and run `make check` there in a chroot with /proc,
# /sys and /dev bound.  Nothing installed on this machine leaks in.
#
# Environment:
#   FRESH_ROOT=/var/tmp/knapid-fresh   where the root is built (wiped first)
#   FRESH_CCACHE=shared|cold           shared (default) binds this machine's
#                                      ccache into the root to keep it short;
#                                      cold starts from an empty one
#   FRESH_TARGETS="check"              the make targets to run in the root
#   FRESH_KEEP=1                       keep the root afterwards
set -uo pipefail
. "$(dirname "$0")/common.sh"

[ "$(id -u)" = 0 ] || die "fresh-check needs root (debootstrap, chroot, mounts)"
root=${FRESH_ROOT:-/var/tmp/knapid-fresh}
targets=${FRESH_TARGETS:-check}
stamp=$(date +%Y%m%d-%H%M%S)
out=$TOP/results/fresh-check/$stamp
mkdir -p "$out"
head=$(git -C "$TOP" rev-parse --short HEAD)
git -C "$TOP" diff --quiet HEAD || warn "uncommitted changes are not part of the check: it clones HEAD ($head)"

mounts_in_root() { awk -v r="$root" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts | sort -r; }
unmount_root() {
	local m
	for m in "$root/root/.ccache" "$root/dev" "$root/sys" "$root/proc" "$root"; do
		mountpoint -q "$m" 2>/dev/null && umount -R "$m" 2>/dev/null
	done
	# whatever is left (deepest first), lazily
	for m in $(mounts_in_root); do umount -l "$m" 2>/dev/null; done
}
# never rm -rf a root that still has the host's /dev or ccache bound into it
remove_root() {
	if [ -n "$(mounts_in_root)" ]; then
		warn "still mounted in $root, not removing it: $(mounts_in_root | tr '\n' ' ')"
		return 1
	fi
	rm -rf --one-file-system "$root"
}
cleanup() {
	unmount_root
	if [ "${FRESH_KEEP:-0}" != 1 ]; then
		remove_root
	else
		log "fresh-check: root kept in $root"
	fi
}

unmount_root
remove_root || die "cannot clear $root"
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v debootstrap >/dev/null; then
	log "apt: installing debootstrap (host side of fresh-check only)"
	# debconf's notes (no apt-utils here) go to the log, not the terminal
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap \
		> "$out/debootstrap-install.log" 2>&1 ||
		{ tail -n 20 "$out/debootstrap-install.log" >&2; die "cannot install debootstrap"; }
fi

# the machine's own Debian mirror, from its apt sources
mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*"

t0=$(date +%s)
log "fresh-check: debootstrap minbase bookworm from $mirror into $root (log: $out/debootstrap.log)"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$out/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$out/debootstrap.log" >&2; die "debootstrap failed"; }

# apt: the same suites and Acquire options as this machine
rm -f "$root/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && grep -q -E 'debian' "$f" && cp "$f" "$root$f"
done
for f in /etc/apt/apt.conf.d/*; do
	grep -q '^Acquire::' "$f" 2>/dev/null && cp "$f" "$root/etc/apt/apt.conf.d/"
done
# CA trust store and pip settings: the registries are reached through a
# TLS-intercepting egress on these machines
mkdir -p "$root/etc/ssl/certs" "$root/usr/local/share/ca-certificates"
cp -a /etc/ssl/certs/. "$root/etc/ssl/certs/"
cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
penv=()
while IFS= read -r kv; do penv+=("$kv"); done < <(env | grep -E '^(PIP_[A-Z_]+|SSL_CERT_[A-Z]+|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|GIT_SSL_CAINFO|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)=' | grep -v '^PIP_FIND_LINKS=')

# / of a real machine is a mount point; `ip netns exec` makes it rslave and
# fails with EINVAL ("mount --make-rslave /" failed) in a chroot whose / is not
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${penv[@]}" "$@"
}

log "fresh-check: apt-get install git make (the README's only prerequisites)"
in_root bash -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git make' \
	> "$out/prereqs.log" 2>&1 || { tail -n 20 "$out/prereqs.log" >&2; die "installing git and make failed"; }

log "fresh-check: clone of $head into $root/root/knapid"
git clone -q --no-local "$TOP" "$root/root/knapid" && git -C "$root/root/knapid" checkout -q "$head" ||
	die "clone failed"

if [ "${FRESH_CCACHE:-shared}" = shared ]; then
	mkdir -p "$CCACHE_DIR" "$root/root/.ccache"
	mount --bind "$CCACHE_DIR" "$root/root/.ccache"
	log "fresh-check: sharing this machine's ccache ($CCACHE_DIR)"
else
	log "fresh-check: cold ccache"
fi

t1=$(date +%s)
log "fresh-check: make $targets in the root (log: $out/make.log); progress follows"
in_root bash -c "cd /root/knapid && make $targets" 2>&1 | tee "$out/make.log"
rc=${PIPESTATUS[0]}
t2=$(date +%s)
cp -a "$root/root/knapid/work/results/." "$out/results/" 2>/dev/null

verdict=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$out/make.log" | tail -n1)
{
	echo "fresh-check of $head on $(date -d @"$t0" '+%F %T')"
	echo "root: debootstrap --variant=minbase bookworm $mirror, then git and make only"
	echo "ccache: ${FRESH_CCACHE:-shared}"
	echo "setup (debootstrap, prerequisites, clone): $((t1 - t0)) s"
	echo "make $targets: $((t2 - t1)) s, exit code $rc"
	echo "verdict: ${verdict:-none printed}"
} | tee "$out/summary.txt"
exit "$rc"
