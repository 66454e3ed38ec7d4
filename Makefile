# SPDX-License-Identifier: GPL-2.0
#
# sroce top-level build.  See README.md; `make help` lists the targets.

TOP		:= $(CURDIR)
BUILD		?= $(TOP)/build
KERNELS		?= 6.1 6.12
RDMA_CORE_VER	:= 56.1
RDMA_CORE_SRC	?= $(BUILD)/rdma-core-$(RDMA_CORE_VER)

export TOP BUILD KERNELS RDMA_CORE_SRC

.PHONY: all help deps module provider tools tests-build check check-unit \
	check-sim check-fuzz check-deb check-host check-vm check-debug demo bench bench-core \
	soak fuzz coverage install deb install-host uninstall-host install-userspace \
	uninstall-userspace clean

all: module provider tools tests-build

help:
	@echo 'make deps        install packages and the pinned rdma-core source (root)'
	@echo 'make             build sroce.ko for $(KERNELS), the provider, tools, tests (all)'
	@echo 'make module      sroce.ko for each of KERNELS, in build/kernel/<release>/'
	@echo 'make tools       sroce-dump, sroce-inject and icrc-check, in build/tools/'
	@echo 'make tests-build the unit-test and simulator binaries'
	@echo 'make check       deps, build, lint, then every test (unit, provider, sim, fuzz, VM on each kernel)'
	@echo 'make check-unit  Check unit tests of the protocol core (ASan + UBSan)'
	@echo 'make check-sim   the simulator: seeded lossy workloads and error-path scenarios'
	@echo 'make check-fuzz  a short pass of every libFuzzer harness (CHECK_FUZZ_SECONDS, 25, shared)'
	@echo 'make check-deb   the packages: contents, lintian, sroce-dkms installed and purged here (root)'
	@echo 'make check-host  the host phase: a Debian 13 root, the packages installed by apt, two guests (root)'
	@echo 'make check-vm    the VM groups: full on 6.1 and 7.3, smoke on 5.10 and 6.12, or full on KERNELS'
	@echo 'make check-debug data path + reliability on a KASAN/lockdep/kmemleak guest kernel'
	@echo 'make demo        two QEMU guests talking over sroce'
	@echo 'make bench       perftest, sroce vs rdma_rxe in one run (BENCH_ARGS=--quick)'
	@echo 'make bench-core  instructions per packet of the protocol core'
	@echo 'make soak        fresh simulator seeds, full-size VM runs, every group on 6.12'
	@echo 'make fuzz        every libFuzzer harness for FUZZ_SECONDS (600) each'
	@echo 'make coverage    line coverage of kernel/proto/*.c from the unit tests and the simulator'
	@echo 'make provider RDMA_CORE_SRC=dir   graft provider/ into your rdma-core tree'
	@echo 'make install [RDMA_CORE_SRC=dir]  install module, sroce-dump (and the provider) on this host'
	@echo 'make deb         Debian packages in build/deb/: sroce-dkms, libibverbs-sroce (rdma-core 56.1), sroce-tools'
	@echo 'make install-host         build the packages and install them (Debian 12: plus /opt/sroce)'
	@echo 'make uninstall-host       remove them again'
	@echo 'make install-userspace    rdma-core 56.1 with the provider in /opt/sroce (PREFIX), for Debian 12'
	@echo 'make uninstall-userspace  remove it again'
	@echo 'make clean       remove build/kernel, build/tests and build/tools'
	@echo 'make help        this list'

deps:
	@scripts/deps.sh

module:
	$(MAKE) -C kernel KERNELS="$(KERNELS)"

provider:
	@scripts/build-provider.sh "$(RDMA_CORE_SRC)"

tools:
	$(MAKE) -C tools

tests-build:
	$(MAKE) -C tests all

# The test phases.  Each ends its output with "N passed, M failed";
# scripts/check.sh times them and adds the counts up.
check:
	@scripts/check.sh

check-unit:
	@$(MAKE) -s -C tests check-unit

check-sim:
	@$(MAKE) -s -C tests check-sim

check-fuzz:
	@$(MAKE) -s -C tests check-fuzz

check-deb:
	@scripts/deb-check.sh

# A Debian 13 root, our packages installed in it with apt, two guests
# booting it (make check's host phase).
check-host: deps
	@$(MAKE) -s all
	@scripts/host-check.sh

# The full suite on each of KERNELS when given, else make check's matrix.
check-vm:
	@tests/vm/run-all.sh $(if $(filter command line environment,$(origin KERNELS)),$(KERNELS))

# Not part of check (time): builds and caches the debug kernel first.
check-debug: deps
	@$(MAKE) -s all
	@scripts/check-debug.sh

demo: deps
	@$(MAKE) -s all
	@tests/vm/demo.sh

# perftest over sroce and rdma_rxe pairs in one run (BENCH_ARGS: --rounds
# N, --quick, --kernel "K..."); a benchmark, never part of check.
# scripts/bench.sh also brings sroce.ko up to date for each kernel it
# runs, KERNELS or not (7.3 by default), and skips one where it fails.
bench: deps
	@$(MAKE) -s module provider tools
	@scripts/bench.sh $(BENCH_ARGS)

bench-core:
	@$(MAKE) -s -C tests bench-core

# The simulator with fresh seeds (SOAK_SECONDS), then the full-size VM
# groups that make check runs bounded (SOAK_VM_GROUPS), then every group
# on the kernels make check only smoke-tests (SOAK_KERNELS); SOAK_VM=0
# skips the guests.
SOAK_VM_GROUPS ?= consumers-loss consumers-rxe consumers-rxe-serves reliability-soak
SOAK_KERNELS ?= 6.12
soak: deps
	@$(MAKE) -s all
	@$(MAKE) -s -C tests soak
	@if [ "$(SOAK_VM)" != 0 ]; then \
		SROCE_VM_GROUPS="$(SOAK_VM_GROUPS)" tests/vm/run-all.sh $(KERNELS) && \
		tests/vm/run-all.sh $(SOAK_KERNELS); fi

fuzz:
	@$(MAKE) -s -C tests fuzz

coverage:
	@$(MAKE) -s -C tests coverage

# The provider is installed only for a tree the user names: the pinned
# default serves the test bed, not the host's libibverbs.
install:
	@SROCE_PROVIDER_SRC="$(if $(filter command line environment,$(origin RDMA_CORE_SRC)),$(RDMA_CORE_SRC))" \
		scripts/install.sh

# The Debian packages (Documentation/install.rst, "Debian packages").
deb:
	@scripts/deb.sh

# Build the packages and install what this host's libibverbs can take,
# on Debian 12 and 13 alike (Documentation/install.rst, "In one command").
install-host: deps
	@scripts/install-host.sh

uninstall-host:
	@scripts/install-host.sh --remove

# rdma-core 56.1's user space, ours included, in a prefix of its own: the
# route for hosts whose libibverbs is another release.
install-userspace:
	@scripts/install-userspace.sh

uninstall-userspace:
	@scripts/install-userspace.sh --remove

clean:
	$(MAKE) -C kernel clean
	$(MAKE) -C tests clean
	$(MAKE) -C tools clean
	rm -rf $(BUILD)/kernel $(BUILD)/tests $(BUILD)/tools
