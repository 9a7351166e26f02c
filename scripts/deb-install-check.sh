#!/usr/bin/env bash
# usage: deb-install-check.sh [NAME]
# `make deb-install-check`: install the packages of `make deb` (work/deb/NAME,
# default slim) the way docs/own-machine.md does, into a clean Debian 12 root
# (debootstrap minbase + initramfs-tools, as on a host that boots with an
# initramfs), and remove them again:
#   dpkg -i linux-image-RELEASE_*.deb [linux-headers-RELEASE_*.deb]
#   apt-get purge -y linux-image-RELEASE [linux-headers-RELEASE]
#   rm -rf /lib/modules/RELEASE  (what depmod generated there)
# It checks what each must leave in /boot and /lib/modules (the postinst
# hooks: initramfs-tools builds the initrd) and writes
# results/deb/install-NAME.md. The root is /var/tmp/knapid-deb-root
# (DEB_ROOT), wiped before and after. GRUB is not in the root: updating a
# boot loader needs a real disk, so the boot itself is what make check's
# deb-slim guest shows.
set -euo pipefail
. "$(dirname "$0")/common.sh"

name=${1:-slim}
dir=$WORK/deb/$name
krel=$(cat "$dir/kernelrelease" 2>/dev/null) || die "no packages in $dir (run make deb or make deb-slim)"
root=${DEB_ROOT:-/var/tmp/knapid-deb-root}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
command -v debootstrap > /dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap > /dev/null ||
	die "cannot install debootstrap"

# only ever wipe a root this script made (it leaves this marker in it)
marker=.knapid-deb-install-check
if [ -e "$root" ] && [ ! -e "$root/$marker" ] && [ -n "$(ls -A "$root" 2>/dev/null)" ]; then
	die "$root exists and was not made by this script: not wiping it (DEB_ROOT=another path)"
fi
cleanup() {
	mountpoint -q "$root/proc" && umount "$root/proc"
	mountpoint -q "$root/dev" && umount "$root/dev"
	if [ -n "$(awk -v r="$root/" 'index($2, r) == 1' /proc/mounts)" ]; then
		warn "mounts left in $root, not removing it"
		return 0
	fi
	rm -rf --one-file-system "$root"
}
cleanup
trap cleanup EXIT

mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*"
log "install-check: debootstrap minbase bookworm + initramfs-tools into $root"
mkdir -p "$root"
touch "$root/$marker"
debootstrap --variant=minbase --include=initramfs-tools bookworm "$root" "$mirror" > "$WORK/deb/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$WORK/deb/debootstrap.log" >&2; die "debootstrap failed"; }
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"

pkgs=("$dir"/linux-image-"$krel"_*.deb)
names=("linux-image-$krel")
if ls "$dir"/linux-headers-"$krel"_*.deb > /dev/null 2>&1; then
	pkgs+=("$dir"/linux-headers-"$krel"_*.deb)
	names+=("linux-headers-$krel")
fi
mkdir -p "$root/tmp/deb"
cp "${pkgs[@]}" "$root/tmp/deb/"
checks=()
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@" > /dev/null 2>&1; then checks+=("ok: $what"); else checks+=("FAILED: $what"); fi
}
log "install-check: dpkg -i ${pkgs[*]##*/}"
start=$(date +%s)
chroot "$root" sh -c 'dpkg -i /tmp/deb/*.deb' > "$WORK/deb/install-$name.log" 2>&1 ||
	{ tail -n 30 "$WORK/deb/install-$name.log" >&2; die "dpkg -i failed (log: $WORK/deb/install-$name.log)"; }
secs=$(($(date +%s) - start))
for n in "${names[@]}"; do
	check "dpkg -i: $n is installed" grep -qx 'install ok installed' \
		<(chroot "$root" dpkg-query -W -f='${Status}\n' "$n")
done
check "/boot/vmlinuz-$krel" test -s "$root/boot/vmlinuz-$krel"
check "/boot/config-$krel with CONFIG_THREADED_NAPI=y" grep -qx CONFIG_THREADED_NAPI=y "$root/boot/config-$krel"
check "/boot/initrd.img-$krel, made by initramfs-tools' postinst hook" test -s "$root/boot/initrd.img-$krel"
if grep -q '^CONFIG_MODULES=y' "$root/boot/config-$krel"; then
	check "/lib/modules/$krel/modules.dep (depmod ran)" test -s "$root/lib/modules/$krel/modules.dep"
	if grep -q '^CONFIG_NETDEVSIM=m' "$root/boot/config-$krel"; then
		check "modinfo netdevsim finds the module of $krel" chroot "$root" modinfo -k "$krel" netdevsim
	fi
fi
ls -la "$root/boot" | sed 's/^/# /' >> "$WORK/deb/install-$name.log"

log "install-check: apt-get purge -y ${names[*]}"
chroot "$root" apt-get purge -y -q "${names[@]}" >> "$WORK/deb/install-$name.log" 2>&1 ||
	{ tail -n 30 "$WORK/deb/install-$name.log" >&2; die "apt-get purge failed"; }
check "apt-get purge: /boot has no file of $krel left" \
	test -z "$(find "$root/boot" -name "*$krel*")"
# the upstream packaging's postrm does not remove what depmod generated
# (modules.dep, modules.alias, ...): docs/own-machine.md has the rm after the purge
# (a purge that left nothing may have removed /lib/modules itself)
left=$(if [ -d "$root/lib/modules/$krel" ]; then cd "$root/lib/modules" && find "$krel" -type f | sort | xargs; fi)
check "apt-get purge: only depmod's modules.* files are left in /lib/modules/$krel (${left:-none})" \
	test -z "$(tr ' ' '\n' <<<"$left" | grep -v -E "^$krel/modules\.[a-z.]+$")"
chroot "$root" rm -rf "/lib/modules/$krel"
check "rm -rf /lib/modules/$krel: nothing of $krel is left on the root" \
	test -z "$(for d in "$root/boot" "$root/lib/modules" "$root/usr/src"; do [ ! -d "$d" ] || find "$d" -name "*$krel*"; done)"

mkdir -p "$TOP/results/deb"
{
	echo "# make deb-install-check: $name ($krel)"
	echo
	echo "Into a clean Debian 12 root (debootstrap minbase bookworm + initramfs-tools), $(date -u '+%F %H:%M') UTC:"
	echo "dpkg -i ${pkgs[*]##*/} took ${secs}s; then apt-get purge -y ${names[*]}."
	echo
	printf -- '- %s\n' "${checks[@]}"
} > "$TOP/results/deb/install-$name.md"
cat "$TOP/results/deb/install-$name.md" >&2
printf '%s\n' "${checks[@]}" | grep -q '^FAILED' && die "install-check: a check failed (log: $WORK/deb/install-$name.log)"
log "install-check: $name installs and purges cleanly"
