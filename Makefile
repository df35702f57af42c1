# SPDX-License-Identifier: GPL-2.0
#
# kprof top-level build. Each part has its own makefile; this one ties them
# together. `make help` lists the targets.

# `make deps X...` installs the kernel headers that the KDIR lines below look
# for when this file is parsed, so on a fresh machine they would find none.
# There the goals after deps run in a second make, started once deps is done.
ifneq ($(filter deps,$(MAKECMDGOALS)),)
ifneq ($(filter-out deps,$(MAKECMDGOALS)),)
KPROF_AFTER_DEPS := $(filter-out deps,$(MAKECMDGOALS))
endif
endif

ifdef KPROF_AFTER_DEPS
.PHONY: deps $(KPROF_AFTER_DEPS)
deps:
	./scripts/deps.sh
	$(MAKE) $(KPROF_AFTER_DEPS)
$(KPROF_AFTER_DEPS): deps
	@:
else

KPROF_ROOT  := $(CURDIR)
BUILD       ?= $(KPROF_ROOT)/build
# Downloads and unpacked Debian packages live outside the tree.
KPROF_CACHE ?= $(or $(HOME),$(shell echo ~))/.cache/kprof
# Kernel to build the module against: the installed Debian 6.1 amd64 headers,
# through the tree `make deps` makes beside them in the cache (the same
# headers plus vmlinux and resolve_btfids, so kprof.ko carries its own BTF
# for BPF); the bare headers when that is missing.
HEADERS     := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))
KDIR        ?= $(firstword $(wildcard $(KPROF_CACHE)/kbuild-$(patsubst linux-headers-%,%,$(notdir $(HEADERS)))/vmlinux) $(HEADERS))
KDIR        := $(patsubst %/vmlinux,%,$(KDIR))

export KPROF_ROOT BUILD KPROF_CACHE KDIR

# Goals run in the order given, also under -j: `make -j2 deps check` must
# finish deps before building. Sub-makes still run their recipes in parallel.
.NOTPARALLEL:

.PHONY: all kmod bpf user kselftest examples deps check check-unit check-style \
	check-bpf check-vm check-html check-debug check-fuzz check-fresh check-deb demo bench \
	man deb static check-nvidia bench-nvidia install clean help

all: kmod bpf user examples

kmod:
	@test -n "$(KDIR)" || { echo "no kernel headers in /usr/src: run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(KPROF_ROOT) modules

bpf:
	$(MAKE) -C bpf

user: bpf
	$(MAKE) -C user

kselftest:
	$(MAKE) -C tests/kselftest

# build/static/kprofctl: libbpf, libelf, libz, libzstd, json-c and libpfm
# linked in, glibc dynamic (dlopen of NVML keeps working): the binary
# carried to hosts without those libraries, a GPU host for check-nvidia.
static: bpf
	$(MAKE) -C user static

examples:
	$(MAKE) -C examples

deps:
	./scripts/deps.sh

# Runs every lane even when one fails, then prints one "N passed, N failed"
# total over all of them (scripts/check.sh).
check:
	MAKE="$(MAKE)" ./scripts/check.sh check-unit check-bpf check-style check-vm check-html check-fuzz check-debug

check-unit: bpf
	$(MAKE) -C user check

# Loads the BPF programs on this host against a pty and a stand-in
# libcuda.so.1 (needs root and tracefs). Skips loudly where BPF is not permitted; CI (CI=true) runs as
# root, so there a skip is a failure.
check-bpf: bpf
	KPROF_REQUIRE_BPF=$(if $(filter true,$(CI)),1,$${KPROF_REQUIRE_BPF:-0}) $(MAKE) -C bpf check

check-style:
	MAKE="$(MAKE)" ./scripts/check-style.sh

# Then the edu PCI backend without and with the IOMMU (tests/vm/run --edu),
# the ioctl fuzzer on it first: kprof_edu_test's device_del takes it away.
# scripts/sum-runs.sh: one total over the runs, the line check.sh counts.
check-vm: kmod user examples kselftest
	$(MAKE) -C tests/fuzz ioctl
	./scripts/sum-runs.sh "./tests/vm/run --suite --timeout 2400" \
		"./tests/vm/run --edu --suite e2e_ioctl_fuzz.sh kprof_edu_test" \
		"./tests/vm/run --edu --iommu --suite e2e_ioctl_fuzz.sh kprof_edu_test"

# report.html of a VM capture rendered by headless Chromium on the host
# (tests/html/check.sh).
check-html: kmod user examples
	./tests/html/check.sh

# libFuzzer targets of the collector's parsers, FUZZ_SECONDS (20) each,
# plus the regression inputs (tests/fuzz/Makefile, docs/testing.md).
check-fuzz:
	$(MAKE) --no-print-directory -C tests/fuzz check

# The VM suite on the debug kernel (KASAN, lockdep, kmemleak, UBSAN...),
# built once into $(KPROF_CACHE)/debug-kernel/ (tests/vm/debug-kernel/).
check-debug: user examples kselftest
	$(MAKE) -C bpf tests
	$(MAKE) -C tests/fuzz ioctl
	./scripts/sum-runs.sh ./tests/vm/debug-kernel/check \
		"./tests/vm/debug-kernel/check --edu e2e_ioctl_fuzz.sh kprof_edu_test" \
		"./tests/vm/debug-kernel/check --edu --iommu e2e_ioctl_fuzz.sh kprof_edu_test"

# The README's set-up, run in a bare Debian 12 root made by debootstrap
# (tests/fresh/run). Not part of `make check`: it takes as long as the
# README's commands on a cold cache (docs/testing.md).
check-fresh:
	./tests/fresh/run

# On a host with an NVIDIA GPU and the CUDA headers, as root: checks
# kprof's NVML declarations against nvml.h, records the NVML playback
# file of the tests, and runs list/info/lock-clock/reset-clock end to end
# (tests/nvidia/check.sh). Needs no libbpf there: give KPROFCTL=path to a
# `make static` kprofctl built elsewhere.
check-nvidia:
	./tests/nvidia/check.sh

# The packages of `make deb` installed with apt in a bare Debian 12 root
# (DKMS builds the module there), then that module booted in the test VM
# (tests/fresh/run --deb). Not part of `make check`: debootstrap and apt.
check-deb: deb
	./tests/fresh/run --deb

# kprofctl(1) and kprofctl-CMD(1) from --help and docs/man/*.h2m.
man: user
	$(MAKE) -C docs/man

# kprof-dkms and kprofctl .debs into $(BUILD)/deb/, lintian-checked
# (packaging/build-deb.sh).
deb:
	./packaging/build-deb.sh

demo: kmod user examples
	./tests/vm/run --exec examples/demo.sh

bench: all
	./bench/run

# The NVIDIA capture's benchmarks, on a GPU host (bench/nvidia/run.sh):
# builds the agent there; KPROFCTL=path to a `make static` kprofctl.
bench-nvidia:
	$(MAKE) -C user agent
	./bench/nvidia/run.sh $(or $(KPROFCTL),build/static/kprofctl) build/libkprof_cupti.so

install: all man
	./scripts/install.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(KPROF_ROOT) clean
	-$(MAKE) -C bpf clean
	-$(MAKE) -C user clean
	-$(MAKE) -C examples clean
	-$(MAKE) -C tests/kselftest clean
	rm -rf $(BUILD)

help:
	@echo "make deps      install the Debian packages kprof needs (apt-get)"
	@echo "make           build kmod/kprof.ko, the BPF objects and kprofctl"
	@echo "make check     host unit tests, checkpatch + sparse, VM test suite, fuzz targets"
	@echo "make check-unit / check-bpf / check-style / check-vm   one lane of make check"
	@echo "make check-fuzz  short libFuzzer run of every collector parser (~3 min)"
	@echo "make check-debug  VM suite on the debug kernel (KASAN, lockdep, kmemleak)"
	@echo "make check-fresh  the README's set-up in a bare Debian 12 root (debootstrap)"
	@echo "make demo      boot the VM, capture an example workload, show results"
	@echo "make bench     benchmarks (see docs/performance.md)"
	@echo "make bench-nvidia  on an NVIDIA GPU host: the NVIDIA capture's benchmarks (KPROFCTL=...)"
	@echo "make install   install module, kprofctl, man pages, udev rules and docs"
	@echo "make man       man pages into build/man/ (help2man + docs/man/)"
	@echo "make deb       kprof-dkms and kprofctl .debs into build/deb/ (lintian-clean)"
	@echo "make check-deb  install the .debs in a bare Debian 12 root, boot their module"
	@echo "make static    build/static/kprofctl, only glibc dynamic (to carry to a GPU host)"
	@echo "make check-nvidia  on an NVIDIA GPU host: NVML declarations, list/info/lock/reset"
	@echo "KDIR=... builds against another kernel tree"

endif # KPROF_AFTER_DEPS
