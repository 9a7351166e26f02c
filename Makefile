# Thin wiring over scripts/: each script does one job and says what it does.
# The two commands a user needs: `make demo` and `make check`.
SHELL := /bin/bash
S := scripts

FLAVOURS := release debug nothreaded stress rt

.PHONY: help deps base apply build harness-test lint check check-base check-deps check-run check-full demo bench export \
	series-status clean build-each fresh-check suspend-probe sabotage selftests \
	stress deb deb-slim deb-install-check kselftest-tar am-check $(addprefix config-,$(FLAVOURS)) $(addprefix build-,$(FLAVOURS))

help:
	@echo "make demo           boot the patched kernel with two virtio-net NICs (QEMU TCG), show what each"
	@echo "                    feature does to their interrupts; fails when an effect is absent"
	@echo "make check          harness self-tests, lint, debug kernels, kselftests in the guests, splat gate:"
	@echo "                    6.12 and 7.3 (BASE=6.12 or BASE=7.3 for one); make check-full adds tests/check-full.list"
	@echo "make bench          the seeds' benchmark tables on virtio-net (about 82 min: three boots), report + plots in results/bench/;"
	@echo "                    QUICK=1: the main boot only, 5 rounds of 2 s (about 24 min);"
	@echo "                    BASE=7.3 TIER=vt: knapid on the guest's virtual clock (QEMU icount, netdevsim)"
	@echo "make export         write the kernel work tree's commits into patches/6.12/<series>/"
	@echo "make series-status  fail if the work tree holds work that patches/ lacks"
	@echo "make lint           checkpatch --strict, the series files, Cc lists, W=1 builds of every patch (knapid on, off), the selftests per patch, netdev CI's checks (7.3)"
	@echo "make build-each     build every patch of the three series on its own (knapid on and off)"
	@echo "make fresh-check    run make check in a clean Debian 12 root (debootstrap + chroot)"
	@echo "make selftests      build and install the kselftests (net, drivers/net, drivers/net/virtio_net) into work/kselftest"
	@echo "make suspend-probe  measure whether IRQ suspensions hold, per placement and NAPI mode"
	@echo "make deb            Debian packages of the patched kernel from Debian's 6.12 config (hours);"
	@echo "                    CONFIG_FROM=/boot/config-... for your host's, LOCALMOD=1 for localmodconfig"
	@echo "make deb-install-check  dpkg -i + apt-get purge of make deb's packages in a clean Debian 12 root"
	@echo "                    (NAME=slim|debian|debian-localmod|host|host-localmod: the work/deb/ directory)"
	@echo "make kselftest-tar  the series' selftests as the kselftest gen_tar tarball, work/kselftest.tar.gz"
	@echo "make am-check       git am the series on every linux-source-6.12 (BASE=7.3: 7.3) apt serves (every file"
	@echo "                    of the tarball committed) and on the tree the recipe of docs/own-machine.md makes"
	@echo "make stress         stress, fault and bad-input campaign on a KASAN + lockdep kernel (hours);"
	@echo "                    QUICK=1 for the short scale; report in results/stress/<date>-<commit>/"
	@echo "                    ONLY=\"NAME...\" for some of its tests (a part of the campaign)"
	@echo "make sabotage       break the kernel on purpose (tests/sabotage/) and show the tests fail; ONLY=05 for one"

deps:
	@$(S)/install-deps.sh

base: deps
	@$(S)/fetch-base.sh >/dev/null

apply: deps
	@$(S)/apply-series.sh

$(addprefix config-,$(FLAVOURS)): config-%: apply
	@$(S)/configure-kernel.sh $*

$(addprefix build-,$(FLAVOURS)): build-%: config-%
	@$(S)/build-kernel.sh $*

# the selftests, built and installed into work/kselftest by the kselftest
# Makefiles (TARGETS="net drivers/net drivers/net/virtio_net"), the way kernel CI gets them
selftests: apply
	@$(S)/build-selftests.sh

build: build-release

# the tarball is what build-selftests.sh makes and unpacks for the guest
kselftest-tar: selftests
	@echo "kselftest tarball: $(CURDIR)/work/kselftest.tar.gz (see docs/own-machine.md)"

deb: apply
	@$(S)/build-deb.sh $(or $(CONFIG_FROM),debian)

am-check: deps
	@$(S)/am-check.sh $(VERSIONS)

deb-install-check:
	@$(S)/deb-install-check.sh $(or $(NAME),slim)

# the package of the slim debug config: make check boots its vmlinuz
deb-slim: build-debug
	@$(S)/build-deb.sh slim

build-each: apply
	@$(S)/build-each.sh

harness-test: deps
	@echo "== harness self-tests (pytest)"
	@# the self-tests bring their own fixtures (made for 6.12): not the BASE of this make
	@env -u BASE /usr/bin/python3 -m pytest -q tests/harness

# the W=1 builds of lint-series.sh (w1-builds.sh) build what the debug
# flavour compiles
lint: apply build-debug
	@$(S)/lint-series.sh

# BASE picks the kernel base (patches/$(BASE)) for every target; make check
# without BASE checks both, 6.12 then 7.3, and fails if either fails
BASES := 6.12 7.3
export BASE

# what check-base needs per base: 6.12 also boots the slim package, 7.3
# the PREEMPT_RT kernel, and 6.12 under check-full the kernel built without
# CONFIG_THREADED_NAPI (every patch of both bases builds without it in
# build-each)
CHECK_DEPS_6.12 := build-debug selftests deb-slim
CHECK_DEPS_7.3 := build-debug build-rt selftests
CHECK_FULL_DEPS_6.12 := build-nothreaded

# each base in turn; the next base is prepared beside this one's guests
check: harness-test
	@$(S)/check-bases.sh $(or $(BASE),$(BASES))

# make check and, in extra boots, the tests make check leaves out for its
# time (tests/check-full.list)
check-full:
	@CHECK_FULL=1 $(MAKE) --no-print-directory check

# check-base = check-deps (what the guests boot and run) + check-run (lint,
# guests, verdict)
check-deps: $(CHECK_DEPS_$(or $(BASE),6.12)) $(if $(filter 1,$(CHECK_FULL)),$(CHECK_FULL_DEPS_$(or $(BASE),6.12)))

check-run:
	@$(S)/check.sh debug

check-base: check-deps
	@$(MAKE) --no-print-directory check-run

demo: build-release selftests
	@$(S)/demo.sh

bench: build-release
	@QUICK=$(QUICK) bench/run.sh

export:
	@$(S)/export-series.sh

# a measurement, not a test: the table goes to results/suspend-probe/table.md
suspend-probe: build-debug selftests
	@mkdir -p results/suspend-probe
	@$(S)/run-guest.sh debug results/suspend-probe 1800 \
		"$(CURDIR)/tests/guest/suspend-probe.sh $(or $(SCALE),1) > $(CURDIR)/results/suspend-probe/table.md 2>&1"
	@cat results/suspend-probe/table.md

# not part of check (slow): for each entry of tests/sabotage/manifest, build
# the sabotaged debug kernel in work/sabotage, boot it and show that the
# expected cases fail; the table goes to results/sabotage/table.md
sabotage: deps
	@$(S)/sabotage.sh $(ONLY)

# not part of check (long): tests/stress/ on the stress flavour (KASAN)
stress: build-stress selftests
	@QUICK=$(QUICK) ONLY="$(ONLY)" $(S)/stress.sh

fresh-check:
	@$(S)/fresh-check.sh

# every base's work tree, unless BASE names one
series-status:
	@rc=0; for b in $(or $(BASE),$(BASES)); do BASE=$$b $(S)/series-status.sh || rc=1; done; exit $$rc

clean:
	rm -rf work/build-* work/results work/kselftest work/kselftest-obj work/kselftest.tar.gz \
		work/sabotage work/deb work/am-check results
