#!/usr/bin/env bash
# usage: build-deb.sh [debian|slim|FILE]
# `make deb`: Debian packages (linux-image, linux-headers, linux-libc-dev) of
# the patched kernel, from the kernel's own `make bindeb-pkg`.
#
# The configuration it starts from:
#   debian  (default) Debian's own 6.12 amd64 config, from the linux-config-6.12
#           package of the same version as the base (apt-get download).
#   FILE    a config file, e.g. the running host's /boot/config-$(uname -r)
#           (make deb CONFIG_FROM=/boot/config-...).
#   slim    the debug kernel `make check` builds (work/build-debug/.config):
#           what CI packages, boots and tests, in minutes through ccache.
# configs/deb.config (CONFIG_THREADED_NAPI=y, LOCALVERSION "-knapid") is
# merged in with scripts/kconfig/merge_config.sh, then `olddefconfig`, and
# scripts/check-config.py fails the build if Kconfig dropped any of it. A
# distribution config also gets configs/deb-distro.config (netdevsim for the
# selftests) and, unless DEBUG_INFO=1, configs/deb-nodebuginfo.config: no
# DWARF and so no BTF, which would make the build and the packages several
# times larger.
#
# Environment: CONFIG_ONLY=1 stops once the config is made and checked.
# LOCALMOD=1 runs `make localmodconfig` first (LSMOD=FILE: the
# `lsmod` output of the target host; default: this host's), which keeps only
# the modules loaded there. DEB_CCACHE_DIR (default ~/.cache/knapid/ccache-deb)
# keeps a multi-GB distribution build from evicting the test kernels' ccache;
# the slim build shares theirs.
#
# Output in work/deb/NAME/ (NAME: debian, host (CONFIG_FROM), slim, and
# debian-localmod or host-localmod with LOCALMOD=1): the .deb files,
# unpacked/ (the linux-image package unpacked, which CI boots), build/ (O=;
# work/build-deb-slim for slim),
# and results/deb/NAME.md: source config, kernel release, build time, package
# sizes and the content checks.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=${1:-debian}
case $src in
debian | slim) name=$src ;;
*)
	[ -r "$src" ] || die "no readable config file '$src' (CONFIG_FROM=/boot/config-... or debian or slim)"
	name=host
	;;
esac
localmod=no
case ${LOCALMOD:-0} in
1) localmod=yes ;;
0 | '') ;;
*) die "LOCALMOD=${LOCALMOD}: 1 or 0" ;;
esac
[ $localmod = yes ] && [ "$src" = slim ] && die "LOCALMOD=1 makes no sense for the slim config (no modules)"
[ $localmod = yes ] && name=$name-localmod
dir=$WORK/deb/$name
# CONFIG_ONLY=1 must not delete the packages of an earlier build
[ -n "${CONFIG_ONLY:-}" ] && dir=$WORK/deb/config-only/$name
# bindeb-pkg writes the packages into O='s parent directory. The slim build
# sits next to work/build-debug, at the same depth, so that ccache (with
# CCACHE_BASEDIR=work) sees the same relative paths and serves every object
B=$dir/build
[ "$src" = slim ] && [ -z "${CONFIG_ONLY:-}" ] && B=$WORK/build-deb-slim
base_version=$(git -C "$LINUX" log -1 --format=%s tarball 2>/dev/null | awk '{print $NF}' || true)
[ -n "$base_version" ] || die "no base commit in $LINUX (run make apply)"

# set, even empty, LOCALVERSION stops setlocalversion from appending "+" for
# a git tree with commits past the tag: the release is 6.12.117-knapid
export LOCALVERSION=
kbuild_env "$WORK"
if [ "$src" != slim ]; then
	export CCACHE_DIR=${DEB_CCACHE_DIR:-$CACHE/ccache-deb}
	export CCACHE_MAXSIZE=${DEB_CCACHE_MAXSIZE:-20G}
fi
jobs=$(($(nproc) + 1))
kmake() { make -s -C "$LINUX" O="$B" ARCH=x86_64 "$@"; }

rm -rf "$dir" "$B"
rm -f "$(dirname "$B")"/linux-*.deb "$(dirname "$B")"/linux-upstream_*
mkdir -p "$dir" "$B"

# 1. the starting config
frags=("$TOP/configs/deb.config")
case $src in
debian)
	cfgdeb=$CACHE/linux-config-6.12_$base_version.deb
	if [ ! -s "$cfgdeb" ]; then
		log "deb: apt-get download linux-config-6.12=$base_version (Debian's configs)"
		tmp=$(mktemp -d)
		chmod 755 "$tmp" # apt's sandbox user reads it
		(cd "$tmp" && apt-get download -q "linux-config-6.12=$base_version" >&2) ||
			die "apt serves no linux-config-6.12=$base_version (run apt-get update?)"
		mv "$tmp"/*.deb "$cfgdeb"
		rmdir "$tmp"
	fi
	dpkg-deb --fsys-tarfile "$cfgdeb" |
		tar -xO ./usr/src/linux-config-6.12/config.amd64_none_amd64.xz | xz -dc > "$B/.config"
	origin="Debian's config.amd64_none_amd64 (linux-config-6.12 $base_version)"
	;;
slim)
	[ -f "$WORK/build-debug/.config" ] || die "no $WORK/build-debug/.config (run make build-debug)"
	cp "$WORK/build-debug/.config" "$B/.config"
	origin="the slim debug config of make check (work/build-debug/.config)"
	;;
*)
	cp "$src" "$B/.config"
	origin="$src"
	;;
esac
if [ "$src" != slim ]; then
	frags+=("$TOP/configs/deb-distro.config")
	[ "${DEBUG_INFO:-0}" = 1 ] || frags+=("$TOP/configs/deb-nodebuginfo.config")
fi
log "deb: $name from $origin, merging ${frags[*]##*/}"

# 2. localmodconfig, the fragments, olddefconfig, and the check
if [ $localmod = yes ]; then
	lsmod_file=${LSMOD:+$(realpath "$LSMOD")}
	if [ -z "$lsmod_file" ]; then
		[ -r /proc/modules ] || die "LOCALMOD=1: this host has no /proc/modules (no loadable modules); give LSMOD=FILE, the lsmod output of the target host"
		lsmod_file=$B/lsmod.txt
		lsmod > "$lsmod_file"
	fi
	[ -s "$lsmod_file" ] || die "LOCALMOD=1: no lsmod output in '$lsmod_file'"
	log "deb: localmodconfig against $(grep -v -c -e '^#' -e '^Module ' "$lsmod_file") modules of ${LSMOD:-this host}"
	kmake olddefconfig
	# the default answer to each question; yes(1) dies of SIGPIPE at the end
	(set +o pipefail; yes '' | kmake LSMOD="$lsmod_file" localmodconfig) > "$B/localmodconfig.log" 2>&1 ||
		{ tail -n 20 "$B/localmodconfig.log"; die "localmodconfig failed"; }
fi
(cd "$B" && "$LINUX/scripts/kconfig/merge_config.sh" -m -O "$B" "$B/.config" "${frags[@]}") > "$B/merge.log" 2>&1 ||
	{ cat "$B/merge.log"; die "merge_config.sh failed"; }
# a host's own config (Ubuntu's, say) names certificate files of its
# distribution's tree; this tree has none
"$LINUX/scripts/config" --file "$B/.config" --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
kmake olddefconfig
"$TOP/scripts/check-config.py" "$B/.config" "${frags[@]}" || die "deb: Kconfig dropped options of ${frags[*]##*/}"
# syncconfig writes include/config/auto.conf, where kernelrelease reads
# CONFIG_LOCALVERSION
kmake syncconfig
krel=$(kmake kernelrelease)
log "deb: kernel release $krel, $(grep -c '=m$' "$B/.config") modules configured"
if [ -n "${CONFIG_ONLY:-}" ]; then
	log "deb: CONFIG_ONLY: stopping before the build; the config is $B/.config"
	exit 0
fi

# 3. make bindeb-pkg; the packages land in $B/..
log "deb: make -j$jobs bindeb-pkg (log: $B/build.log; a distribution config takes hours on 2 cores)"
start=$(date +%s)
make -C "$LINUX" O="$B" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"$jobs" bindeb-pkg > "$B/build.log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 30
	kill -0 "$pid" 2>/dev/null || break
	log "deb $name: $(grep -c '^  CC ' "$B/build.log" || true) files compiled, $(grep -c '^  LD \[M\]' "$B/build.log" || true) modules linked, $(($(date +%s) - start))s"
done
if ! wait "$pid"; then
	grep -E -B2 -A8 'error:|Error [0-9]|dpkg-buildpackage: error' "$B/build.log" | head -60 >&2
	die "deb: bindeb-pkg failed (full log: $B/build.log)"
fi
secs=$(($(date +%s) - start))
log "deb: bindeb-pkg done in ${secs}s"
if [ "$(dirname "$B")" != "$dir" ]; then
	mv "$(dirname "$B")"/linux-*.deb "$(dirname "$B")"/linux-upstream_* "$dir"/
fi

# 4. what the packages must hold
image=$(ls "$dir"/linux-image-"$krel"_*.deb 2>/dev/null | grep -v -- '-dbg_' | head -n 1 || true)
[ -n "$image" ] || die "deb: no linux-image-${krel}_*.deb in $dir"
mkdir -p "$dir/unpacked"
dpkg-deb -x "$image" "$dir/unpacked"
checks=()
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@" > /dev/null 2>&1; then
		checks+=("ok: $what")
	else
		checks+=("FAILED: $what")
	fi
}
U=$dir/unpacked
check "boot/vmlinuz-$krel is a bzImage" grep -q 'Linux kernel x86 boot executable bzImage' <(file -L "$U/boot/vmlinuz-$krel")
check "boot/config-$krel has CONFIG_THREADED_NAPI=y" grep -qx CONFIG_THREADED_NAPI=y "$U/boot/config-$krel"
check "boot/System.map-$krel has the knapid sysctl's handler proc_do_knapid_enabled" \
	grep -q ' proc_do_knapid_enabled$' "$U/boot/System.map-$krel"
check "boot/System.map-$krel has the knapid thread function knapid_should_run" \
	grep -q ' knapid_should_run$' "$U/boot/System.map-$krel"
if grep -q '^CONFIG_MODULES=y' "$B/.config"; then
	check "lib/modules/$krel/modules.dep is there" test -s "$U/lib/modules/$krel/modules.dep"
	if grep -q '^CONFIG_NETDEVSIM=m' "$B/.config"; then
		check "the netdevsim module the selftests need is packaged" \
			test -n "$(find "$U/lib/modules/$krel" -name 'netdevsim.ko*')"
	fi
fi
printf '%s\n' "$krel" > "$dir/kernelrelease"

{
	echo "# make deb: $name"
	echo
	echo "- config: $origin, + ${frags[*]##*/}$([ $localmod = no ] || echo ", localmodconfig (${LSMOD:-lsmod of this host})")"
	echo "- kernel release: $krel ($(series_patches | wc -l) patches in $(series_dirs | wc -l) series on Debian linux-source-6.12 $base_version)"
	echo "- built: $(date -u '+%F %H:%M') UTC on $(nproc) CPUs, bindeb-pkg took ${secs}s ($((secs / 60)) min), ccache $CCACHE_DIR"
	echo "- modules configured: $(grep -c '=m$' "$B/.config")"
	echo
	echo "| package | size |"
	echo "|---|---|"
	for f in "$dir"/*.deb; do
		echo "| $(basename "$f") | $(du -h "$f" | cut -f1) |"
	done
	echo
	echo "Content checks:"
	printf -- '- %s\n' "${checks[@]}"
} > "$dir/summary.md"
mkdir -p "$TOP/results/deb"
cp "$dir/summary.md" "$TOP/results/deb/$name.md"
cat "$dir/summary.md" >&2
if printf '%s\n' "${checks[@]}" | grep -q '^FAILED'; then
	die "deb: the packages lack what they must hold (above)"
fi
log "deb: packages in $dir, summary in results/deb/$name.md"
