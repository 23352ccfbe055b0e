# SPDX-License-Identifier: MIT
# >> make check (included by the Makefile): the inner loop, a few minutes on
# 2 cores. It builds the plain test programs and the CUDA runtime double, runs
# each program on the CPU backend and again with cuda as the default backend
# on the double (as tests/run.sh does), and the cheap checks of the operation
# list, the README's tables, the fast paths and the licence lines. Each run
# is a target of its own (tests/step.sh writes its result under $(CK)), so
# that make runs several at once; tests/summary.sh adds up their counts into
# tests/run.sh's last line. It builds first, CHECK_JOBS compiles at once (GNU
# make 4.3 would build every program before it starts a run anyway), then
# runs CHECK_RUN_JOBS checks at once (CHECK_JOBS unless set). A run waits
# more than it computes (test_kernels: 70 s for 20 CPU-seconds on a loaded
# machine), so more runs than CPUs would end sooner, but cases with an
# alarm then miss it: twice the CPUs on a machine loaded to 15 made
# test_env's XRT_CACHE case (14 kernel compiles in 10 s) time out. `make test` remains the
# gate: sanitizers, valgrind, the compile matrix, the VMs, the install.
CK          ?= $(B)/check
CHECK_JOBS  ?= $(shell nproc 2> /dev/null || echo 2)
CHECK_RUN_JOBS ?= $(CHECK_JOBS)
CK_STEP     := B=$(B) LOG=$(CK)/logs sh tests/step.sh
CK_DOUBLE   := $(CURDIR)/$(B)/doubles/libcudart.so.13

# The slowest programs first, so that their runs start first (make starts
# the prerequisites of check-run in their order).
CK_SLOW     := test_kernels test_thread_exit test_handles test_handles_no_membarrier test_graph
CK_ORDER    := $(foreach t,$(CK_SLOW),$(filter $(t),$(TESTS))) $(filter-out $(CK_SLOW),$(TESTS))
CK_RESULTS  :=
CK_BUILT    :=
ifeq ($(HAVE_CMOCKA),1)
CK_BUILT    += $(addprefix $(B)/plain/,$(CK_ORDER)) $(B)/plugins/libxrt_trace.so
ifeq ($(HAVE_CUDA),1)
CK_RESULTS  += $(foreach t,$(CK_ORDER),$(CK)/cuda/$(t) $(CK)/cpu/$(t)) $(CK)/cuda/cuda_shutdown
CK_BUILT    += $(B)/doubles/libcudart.so.13 $(B)/gpu/cuda_shutdown
else
CK_RESULTS  += $(addprefix $(CK)/cpu/,$(CK_ORDER)) $(CK)/cuda/skipped
endif
CK_RESULTS  += $(CK)/ops/suite_4_devices $(CK)/ops/suite_on_trace $(CK)/ops/devices_on_trace \
	       $(CK)/ops/badinput_on_trace $(CK)/ops/calls \
	       $(CK)/ops/checked
else
CK_RESULTS  += $(CK)/cmocka_skipped
endif
# test_fabric links libfabric (examples/fabric.mk builds it where
# <rdma/fabric.h> and <infiniband/verbs.h> are): on the CPU and the double
# as the others, on the tcp provider as tests/fabric.sh runs it (under a
# second each); without libfabric-dev, a skipped: line says why.
ifeq ($(HAVE_CMOCKA)$(HAVE_FABRIC)$(HAVE_VERBS),111)
CK_BUILT    += $(B)/plain/test_fabric
CK_RESULTS  += $(CK)/cpu/test_fabric $(if $(filter 1,$(HAVE_CUDA)),$(CK)/cuda/test_fabric)
else ifeq ($(HAVE_CMOCKA),1)
CK_RESULTS  += $(CK)/fabric_skipped
endif
CK_RESULTS  += $(CK)/ops/readme $(CK)/ops/errors $(CK)/ops/fastpath $(CK)/ops/vendoring $(CK)/ops/spdx \
	       $(CK)/ops/layout $(CK)/ops/kit $(CK)/ops/mutant_texts

.PHONY: check check-build check-run

# Every check runs each time: check removes the results of the last run
# first, as a result names only some of what its check reads (the binary),
# so it cannot stand for a pass.
# Parallel by default (CHECK_JOBS, CHECK_RUN_JOBS), unless make was given -j.
# The programs are built at CHECK_CFLAGS in a tree of their own, CHECK_B:
# -Og compiles the implementation in a third of -O2's time, and make test's
# -O2 programs in $(B) stay as they are. The results stay in $(CK).
CHECK_CFLAGS ?= -Og -g
CHECK_B      := $(B)/og
CHECK_MAKE    = $(MAKE) --no-print-directory B=$(CHECK_B) CK=$(CK) CFLAGS="$(CHECK_CFLAGS)"
check:
	@rm -rf $(CK)
	@$(CHECK_MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) check-build
	@$(CHECK_MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_RUN_JOBS)) check-run

check-build: $(CK_BUILT)

check-run: $(CK_RESULTS)
	@sh tests/summary.sh $(CK_RESULTS)

$(CK)/cpu/%: $(B)/plain/%
	@$(CK_STEP) $@ cmocka $(B)/plain/$*
$(CK)/cuda/%: $(B)/plain/% $(B)/doubles/libcudart.so.13
	@$(CK_STEP) $@ cmocka env XRT_CUDA_LIBRARY="$(CK_DOUBLE)" $(B)/plain/$*
# test_kernels' cuda group skips every case on the double (it loads no
# modules), and its cpu group is the CPU run's again: half a minute for
# nothing new. make test runs it there.
$(CK)/cpu/test_fabric: $(B)/plain/test_fabric
	@$(CK_STEP) $@ cmocka env FI_PROVIDER=tcp $<
$(CK)/cuda/test_fabric: $(B)/plain/test_fabric $(B)/doubles/libcudart.so.13
	@$(CK_STEP) $@ cmocka env XRT_CUDA_LIBRARY="$(CK_DOUBLE)" FI_PROVIDER=tcp $<
$(CK)/fabric_skipped:
	@$(CK_STEP) $@ skip "test_fabric: <rdma/fabric.h> or <infiniband/verbs.h> not found (install libfabric-dev and libibverbs-dev)"
$(CK)/cuda/test_kernels:
	@$(CK_STEP) $@ skip "test_kernels on the CUDA runtime double: its cuda group skips there (no modules), its cpu group ran on the CPU (make test runs it)"
$(CK)/cuda/cuda_shutdown: $(B)/gpu/cuda_shutdown $(B)/doubles/libcudart.so.13
	@$(CK_STEP) $@ step "cuda_shutdown (test_shutdown's CUDA calls without xrt) on the double" $< "$(CK_DOUBLE)"
$(CK)/cuda/skipped:
	@$(CK_STEP) $@ skip "suite with cuda as the default: no CUDA headers, no runtime double"
$(CK)/cmocka_skipped:
	@$(CK_STEP) $@ skip "$(SKIP_CMOCKA)"

# The shared suite with four CPU devices, and through the tracing plugin,
# whose trace shows that the suite calls every operation; test_devices (its
# four CPU devices) through the tracing plugin too: a test that means "on
# the CPU" asks on_cpu() (tests/xrt_test.h), not for the name "cpu"; and
# test_badinput, whose details must name the public call there too.
$(CK)/ops/suite_4_devices: $(B)/plain/test_suite
	@$(CK_STEP) $@ cmocka env XRT_CPU_DEVICES=4 $<
$(CK)/ops/suite_on_trace: $(B)/plain/test_suite $(B)/plugins/libxrt_trace.so
	@$(CK_STEP) $@ suite_on_trace plain $(B)/plugins env XRT_CPU_DEVICES=2 $<
$(CK)/ops/devices_on_trace: $(B)/plain/test_devices $(B)/plugins/libxrt_trace.so
	@$(CK_STEP) $@ program_on_trace devices plain $(B)/plugins $<
$(CK)/ops/badinput_on_trace: $(B)/plain/test_badinput $(B)/plugins/libxrt_trace.so
	@$(CK_STEP) $@ program_on_trace badinput plain $(B)/plugins $<
$(CK)/ops/calls: $(CK)/ops/suite_on_trace
	@$(CK_STEP) $@ step "every operation is called by the suite" \
	  env CC="$(CC)" sh tests/operations.sh suite $(CK)/logs/trace-suite-plain.txt
# The suite runs clean under the stream-order checker (make test: the examples too).
$(CK)/ops/checked: $(B)/plain/test_suite $(if $(filter 1,$(HAVE_CUDA)),$(B)/doubles/libcudart.so.13)
	@$(CK_STEP) $@ step "suite with XRT_CHECK=streams: no race report" env B=$(B) sh tests/checked.sh suite
$(CK)/ops/readme:
	@$(CK_STEP) $@ step "every operation has its row in the README" env CC="$(CC)" sh tests/operations.sh readme
$(CK)/ops/errors:
	@$(CK_STEP) $@ step "REFERENCE's error table and return types match xrt.h" sh tests/errors.sh
$(CK)/ops/fastpath:
	@$(CK_STEP) $@ step "cpu fast paths under strace" env CC="$(CC)" sh tests/fastpath.sh
$(CK)/ops/vendoring:
	@$(CK_STEP) $@ step "each build from only the headers the README names for it" \
	  env CC="$(CC)" CUDA_HOME="$(CUDA_HOME)" sh tests/vendoring.sh
$(CK)/ops/spdx:
	@$(CK_STEP) $@ step "every header, source and script has an SPDX licence line" sh tests/spdx.sh
$(CK)/ops/layout:
	@$(CK_STEP) $@ step "the layout lists of xrt.h, xrt_cache.h, xrt_check.h and DESIGN.md name their markers" sh tests/layout.sh
$(CK)/ops/mutant_texts:
	@$(CK_STEP) $@ step "each mutant's text is in its file exactly once" env MUTANTS_TEXTS=1 sh tests/mutants.sh
$(CK)/ops/kit:
	@$(CK_STEP) $@ step "xrt.h's kit declares exactly the private names of xrt.h that the other headers use" sh tests/kit.sh
