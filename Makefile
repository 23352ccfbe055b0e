# SPDX-License-Identifier: MIT
# xrt: header-only; this Makefile builds the examples, tools, tests and benchmarks
# (examples/ is for reading; tools/ holds the programs users run: xrt_info,
# bandwidth and the tracing plugin, built into build/examples and build/plugins).
#   make check    the inner loop (a few minutes on 2 idle cores): the test programs (-Og) on the
#                 CPU and on the CUDA runtime double, and the cheap checks (tests/check.mk)
#   make          the examples and tools (build-essential is enough)
#   make run      build them, then run xrt_info and the demo on the default backend, and saxpy, graph,
#                 graph_nodes, capture_library, ipc and a2f on the CPU
#   make tests    build the test programs (needs libcmocka-dev)
#   make test     everything make test checks (tests/run.sh)
#   make install  PREFIX=/usr/local: headers, tools, pkg-config and CMake files
#   make uninstall  the same PREFIX: removes what make install put there (and its directories, left empty)
#   make mutants  each mutant of tests/mutants.txt must make a test program fail
# Optional packages: each enables what it names and is otherwise reported as
# "skipped: <reason>" (make deps lists them).

CC       ?= cc
CXX      ?= c++
PREFIX   ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(CUDA_HOME)/bin/nvcc
HIPCC    ?= hipcc
B        := build

WARN     := -Wall -Wextra -Werror -pedantic
CFLAGS   ?= -O2 -g
XCFLAGS  := -std=c11 $(WARN) -I.
LDLIBS   := -lpthread

# have-header HEADER [FLAGS]: 1 when the C compiler finds it (and it compiles).
have-header = $(shell printf '\043include <%s>\n' '$(1)' | $(CC) $(2) -E -x c - > /dev/null 2>&1 && echo 1)
# given VAR: non-empty where VAR is set on make's command line: its probe
# (below) does not run then. tests/mutants.sh passes `make probes`' answers
# to each of its thousand makes.
given = $(filter command line,$(origin $(1)))

# GPU backends are compiled in when their headers are present; their runtimes
# are loaded at run time, so the binaries run without them.
HAVE_CUDA := $(if $(call given,HAVE_CUDA),,$(shell test -f $(CUDA_HOME)/include/cuda_runtime_api.h && echo 1))
HAVE_HIP  := $(if $(call given,HAVE_HIP),,$(call have-header,hip/hip_runtime_api.h,-D__HIP_PLATFORM_AMD__))
HAVE_NVCC := $(if $(call given,HAVE_NVCC),,$(shell test -x $(NVCC) && echo 1))
HAVE_HIPCC := $(if $(call given,HAVE_HIPCC),,$(shell command -v $(HIPCC) > /dev/null 2>&1 && echo 1))
HAVE_VERBS := $(if $(call given,HAVE_VERBS),,$(call have-header,infiniband/verbs.h))
HAVE_CMOCKA := $(if $(call given,HAVE_CMOCKA),,$(call have-header,cmocka.h,-include stdarg.h -include stddef.h \
	       -include stdint.h -include setjmp.h))
ENABLE    := -DXRT_ENABLE_CPU
ifeq ($(HAVE_CUDA),1)
ENABLE    += -DXRT_ENABLE_CUDA -isystem $(CUDA_HOME)/include
endif
ifeq ($(HAVE_HIP),1)
ENABLE    += -DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__
endif

# What is skipped for want of a package: `skipped: <what>: <reason>` lines.
SKIP_CUDA   := CUDA backend: $(CUDA_HOME)/include/cuda_runtime_api.h not found (install the CUDA Toolkit or set CUDA_HOME)
SKIP_HIP    := HIP backend: hip/hip_runtime_api.h not found (install libamdhip64-dev)
SKIP_NVCC   := $(B)/examples/vector_add: $(NVCC) not found (install the CUDA Toolkit)
SKIP_HIPCC  := HIP code objects of $(B)/examples/saxpy: $(HIPCC) not found (install hipcc)
SKIP_VERBS  := $(B)/examples/rdma_pingpong and RDMA in xrt_info: infiniband/verbs.h not found (install libibverbs-dev)
SKIP_CMOCKA := test programs: cmocka.h not found (install libcmocka-dev)

HEADERS  := $(wildcard xrt*.h)
# (test_fabric links libfabric: examples/fabric.mk builds it, tests/fabric.sh and tests/check.mk run it)
TESTS    := $(filter-out test_fabric,$(patsubst tests/%.c,%,$(wildcard tests/test_*.c)))
EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))
# The tools users run (installed by make install); built beside the examples.
TOOLS    := $(patsubst tools/%.c,%,$(filter-out tools/trace.c,$(wildcard tools/*.c)))
BENCHES  := $(patsubst bench/%.c,%,$(wildcard bench/*.c))
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all run test install uninstall examples tests bench bench-instructions clean deps skipped mutants probes
all: examples

# one binary per test file, three flavours: plain, ASan+UBSan, TSan.
# TEST_CFLAGS: gcc's tracking of where each variable lives in optimised code
# (-fvar-tracking, on with -g) is a third of the implementation's compile
# and serves only a debugger inside
# optimised frames; the line tables and types stay, for backtraces, valgrind
# and the sanitizers. A compiler without the flag (clang) builds without it.
# SAN_OPT: the sanitizer flavours at -Og compile in half of -O1's time (the
# plain programs keep CFLAGS' -O2).
SAN_OPT ?= -Og -g
TEST_CFLAGS := $(if $(call given,TEST_CFLAGS),,$(shell $(CC) -Werror -fno-var-tracking -E -x c /dev/null > /dev/null \
	       2>&1 && echo -fno-var-tracking))
# TESTS_IMPL: the white-box programs, each its own XRT_IMPL unit (the line
# `#define XRT_IMPL` in its file); every other program is an application
# linked with its flavour's XRT_IMPL unit (tests/impl.c), compiled once: the
# implementation is most of a program's compile. (IMPL_ENABLE: ENABLE as
# the Makefile sets it, not as a program's own additions below.)
TESTS_IMPL := $(patsubst tests/%.c,%,$(shell grep -l '^\#define XRT_IMPL' tests/test_*.c))
TEST_OBJ    = $(if $(filter $(filter-out $(TESTS_IMPL),$(TESTS)),$(notdir $@)),$(@D)/xrt_impl.o)
IMPL_ENABLE := $(ENABLE)
$(B)/plain/xrt_impl.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(TEST_CFLAGS) $(IMPL_ENABLE) -c -o $@ $<
$(B)/asan/xrt_impl.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(SAN_OPT) $(TEST_CFLAGS) $(SAN) $(IMPL_ENABLE) -c -o $@ $<
$(B)/tsan/xrt_impl.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(SAN_OPT) $(TEST_CFLAGS) -fsanitize=thread $(IMPL_ENABLE) -c -o $@ $<
.SECONDEXPANSION:
$(B)/plain/%: tests/%.c tests/xrt_test.h $(HEADERS) $$(TEST_OBJ)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(TEST_CFLAGS) $(ENABLE) -o $@ $< $(TEST_OBJ) $(LDLIBS) -lcmocka
$(B)/asan/%: tests/%.c tests/xrt_test.h $(HEADERS) $$(TEST_OBJ)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(SAN_OPT) $(TEST_CFLAGS) $(SAN) $(ENABLE) -o $@ $< $(TEST_OBJ) $(LDLIBS) -lcmocka
$(B)/tsan/%: tests/%.c tests/xrt_test.h $(HEADERS) $$(TEST_OBJ)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(SAN_OPT) $(TEST_CFLAGS) -fsanitize=thread $(ENABLE) -o $@ $< $(TEST_OBJ) $(LDLIBS) -lcmocka

$(B)/examples/%: examples/%.c examples/pipes.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS)
$(addprefix $(B)/examples/,$(TOOLS)): $(B)/examples/%: tools/%.c tools/cli.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS)
$(B)/bench/%: bench/%.c bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -g -DNDEBUG $(ENABLE) -o $@ $< $(LDLIBS)

# rdma_pingpong needs the verbs headers and library (tests/rdma/rdma.mk builds it).
examples: skipped $(addprefix $(B)/examples/,$(TOOLS))
ifeq ($(HAVE_VERBS),1)
examples: $(addprefix $(B)/examples/,$(EXAMPLES))
else
examples: $(addprefix $(B)/examples/,$(filter-out rdma_pingpong,$(EXAMPLES)))
endif

# One line per optional package that is missing, before the build starts.
skipped:
ifneq ($(HAVE_CUDA),1)
	@echo "skipped: $(SKIP_CUDA)"
endif
ifneq ($(HAVE_HIP),1)
	@echo "skipped: $(SKIP_HIP)"
endif
ifneq ($(HAVE_NVCC),1)
	@echo "skipped: $(SKIP_NVCC)"
endif
ifneq ($(HAVE_HIPCC),1)
	@echo "skipped: $(SKIP_HIPCC)"
endif
ifneq ($(HAVE_VERBS),1)
	@echo "skipped: $(SKIP_VERBS)"
endif

# Which optional package enables what, and which are here.
deps:
	@echo "build-essential        required: the examples, tools and xrt itself"
	@echo "CUDA Toolkit           CUDA backend, examples/cuda/vector_add (nvcc): $(if $(HAVE_CUDA),found,not found)"
	@echo "libamdhip64-dev        HIP backend: $(if $(HAVE_HIP),found,not found)"
	@echo "hipcc                  HIP code objects of examples/saxpy and their tests: $(if $(HAVE_HIPCC),found,not found)"
	@echo "libibverbs-dev         RDMA (xrt_rdma.h), rdma_pingpong, RDMA in xrt_info: $(if $(HAVE_VERBS),found,not found)"
	@echo "libcmocka-dev          the test programs (make tests, make test): $(if $(HAVE_CMOCKA),found,not found)"
	@echo "libfabric-dev          examples/fabric_rma, a2f_fabric and test_fabric (make fabric-test): $(if $(HAVE_FABRIC),found,not found)"
	@echo "gnuplot-nox (gnuplot)  make plot, the bandwidth plot: $(if $(shell command -v $(GNUPLOT)),found,not found)"
	@echo "pkg-config, cmake      the install checks of make test: $(if $(shell command -v pkg-config),found,not found), $(if $(shell command -v cmake),found,not found)"
	@echo "valgrind, strace, clang, qemu-system-x86 ...   more checks of make test (see .ci/run)"

# The kernel benchmark's baseline is the same loop under OpenMP.
$(B)/bench/kernels: XCFLAGS += -fopenmp

# >> CUDA example (added with the GPU backends): a kernel on an xrt stream. nvcc
# builds the .cu file; its XRT_IMPL unit is C, compiled with the backend flags.
# -cudart shared: the kernel launch and xrt use the same CUDA runtime.
ifeq ($(HAVE_NVCC),1)
$(B)/examples/cuda/vector_add_impl.o: examples/cuda/vector_add_impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -c -o $@ $<
$(B)/examples/vector_add: examples/cuda/vector_add.cu $(B)/examples/cuda/vector_add_impl.o xrt.h xrt_backends.h
	@mkdir -p $(@D)
	$(NVCC) -std=c++17 -O2 -I. -cudart shared -o $@ $< $(B)/examples/cuda/vector_add_impl.o $(LDLIBS)
examples: $(B)/examples/vector_add
endif

# >> saxpy example: one kernel written once for the CPU (C, built into a shared
# object by the system compiler) and once for GPUs (.cu, built into a CUDA
# fatbin where nvcc is, and into HIP images where hipcc is); the program offers
# every image to xrt_module_load.
SAXPY := $(B)/examples/saxpy
SAXPY_IMAGES := $(SAXPY)/saxpy_cpu.so
$(SAXPY)/saxpy_cpu.so: examples/saxpy/saxpy_cpu.c examples/saxpy/saxpy_args.h xrt.h xrt_backends.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -I. -shared -fPIC -O2 -o $@ $<
ifeq ($(HAVE_NVCC),1)
SAXPY_IMAGES += $(SAXPY)/saxpy.fatbin
$(SAXPY)/saxpy.fatbin: examples/saxpy/saxpy.cu
	@mkdir -p $(@D)
	$(NVCC) -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o $@ $<
endif
# hipcc --genco writes a clang offload bundle (XRT_IMAGE_HIP_OFFLOAD_BUNDLE);
# with --no-gpu-bundle-output and one arch, the bare code object, an AMDGPU
# ELF (XRT_IMAGE_HIP_CODE_OBJECT). Debian 12's hipcc (clang 15, ROCm device
# libraries 5.2) knows gfx908, gfx90a and gfx1030 but not gfx942 or gfx1100.
# HIP_BUNDLE_LABEL, comma-separated, is the arch saxpy gives the bundle (for
# messages: xrt reads the bundle's own entries).
HIP_BUNDLE_ARCHS ?= gfx908 gfx90a gfx1030
comma := ,
HIP_BUNDLE_LABEL := $(subst $(eval) $(eval),$(comma),$(strip $(HIP_BUNDLE_ARCHS)))
ifeq ($(HAVE_HIPCC),1)
SAXPY_IMAGES += $(SAXPY)/saxpy_gfx90a.hsaco $(SAXPY)/saxpy.hipfb
$(SAXPY)/saxpy_gfx90a.hsaco: examples/saxpy/saxpy.cu
	@mkdir -p $(@D)
	$(HIPCC) --genco --offload-arch=gfx90a --no-gpu-bundle-output -o $@ $<
$(SAXPY)/saxpy.hipfb: examples/saxpy/saxpy.cu
	@mkdir -p $(@D)
	$(HIPCC) --genco $(addprefix --offload-arch=,$(HIP_BUNDLE_ARCHS)) -o $@ $<
endif
$(SAXPY)/saxpy: examples/saxpy/saxpy.c examples/saxpy/saxpy_args.h $(HEADERS) $(SAXPY_IMAGES)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -DSAXPY_HIP_BUNDLE_ARCHS=\"$(HIP_BUNDLE_LABEL)\" -o $@ $< $(LDLIBS)
examples: $(SAXPY)/saxpy
# The tests that load these images read them from $(SAXPY); they also read
# a bare cubin and the PTX, which saxpy does not offer.
SAXPY_TEST_IMAGES := $(SAXPY_IMAGES)
ifeq ($(HAVE_NVCC),1)
SAXPY_TEST_IMAGES += $(SAXPY)/saxpy_sm90.cubin $(SAXPY)/saxpy.ptx
$(SAXPY)/saxpy_sm90.cubin: examples/saxpy/saxpy.cu
	@mkdir -p $(@D)
	$(NVCC) -cubin -arch=sm_90 -o $@ $<
$(SAXPY)/saxpy.ptx: examples/saxpy/saxpy.cu
	@mkdir -p $(@D)
	$(NVCC) -ptx -arch=compute_90 -o $@ $<
endif
SAXPY_TESTS := $(foreach f,plain asan tsan,$(B)/$(f)/test_kernels $(B)/$(f)/test_gpu)
$(SAXPY_TESTS): ENABLE += -DXRT_TEST_SAXPY_DIR=\"$(SAXPY)\" -DXRT_TEST_HIPCC=$(if $(HAVE_HIPCC),1,0) \
	-DXRT_TEST_NVCC=$(if $(HAVE_NVCC),1,0) -DXRT_TEST_HIP_BUNDLE_ARCHS=\"$(HIP_BUNDLE_LABEL)\"
$(SAXPY_TESTS): | $(SAXPY_TEST_IMAGES)


# the handle tests again with xrt's fallback for a missing membarrier(2)
$(B)/plain/test_handles_no_membarrier $(B)/asan/test_handles_no_membarrier $(B)/tsan/test_handles_no_membarrier: tests/test_handles.c

ifeq ($(HAVE_CMOCKA),1)
tests: $(addprefix $(B)/plain/,$(TESTS)) $(addprefix $(B)/asan/,$(TESTS)) $(B)/tsan/test_stress $(B)/tsan/test_handles $(B)/tsan/test_handles_no_membarrier $(B)/tsan/test_kernels $(B)/tsan/test_cpu $(B)/tsan/test_graph $(B)/tsan/test_ipc $(B)/tsan/test_fork $(B)/tsan/test_devices $(B)/tsan/test_rdma $(B)/tsan/test_gpu $(B)/tsan/test_thread_exit $(B)/tsan/test_host_fn $(B)/tsan/test_pools $(B)/tsan/test_managed $(B)/tsan/test_per_thread $(B)/tsan/test_per_thread_units $(B)/tsan/test_check \
	$(B)/plain/late_destructor $(B)/tsan/late_destructor
else
tests:
	@echo "skipped: $(SKIP_CMOCKA)"
endif
bench: $(addprefix $(B)/bench/,$(BENCHES))

# The CUDA runtime's test double and the benchmarks' stub: tests/doubles/doubles.mk.
ifeq ($(HAVE_CUDA),1)
# The CUDA runtime calls of test_shutdown's case without xrt (a diagnosis
# for a GPU machine; make test runs it on the double).
$(B)/gpu/cuda_shutdown: tests/gpu/cuda_shutdown.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -g -isystem $(CUDA_HOME)/include -o $@ $< -ldl -lpthread
tests: $(B)/gpu/cuda_shutdown
endif

# The probes' answers, as make's command line takes them (tests/mutants.sh).
probes:
	@echo HAVE_CUDA=$(HAVE_CUDA) HAVE_HIP=$(HAVE_HIP) HAVE_NVCC=$(HAVE_NVCC) HAVE_HIPCC=$(HAVE_HIPCC) \
	    HAVE_VERBS=$(HAVE_VERBS) HAVE_CMOCKA=$(HAVE_CMOCKA) TEST_CFLAGS=$(TEST_CFLAGS) HAVE_FABRIC=$(HAVE_FABRIC) \
	    FUZZ_HIP=$(FUZZ_HIP)

# Mutation testing (tests/mutants.sh): 12 to 18 minutes on 2 cores (about 500 mutants).
# (its log stays in $(B)/mutants.log: make test's summary repeats the kill rate)
mutants:
	@mkdir -p $(B); MAKE="$(MAKE)" sh tests/mutants.sh > $(B)/mutants.log 2>&1; s=$$?; cat $(B)/mutants.log; exit $$s

run: examples
	$(B)/examples/xrt_info
	$(B)/examples/demo
	XRT_BACKEND=cpu $(SAXPY)/saxpy
	XRT_BACKEND=cpu $(B)/examples/graph
	XRT_BACKEND=cpu $(B)/examples/graph_nodes
	XRT_BACKEND=cpu $(B)/examples/capture_library
	XRT_BACKEND=cpu $(B)/examples/ipc
	XRT_BACKEND=cpu $(B)/examples/a2f


VERSION  := $(shell sed -n 's/^\#define XRT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' xrt.h | paste -sd.)
INSTALLED := $(addprefix include/xrt/,$(HEADERS)) $(addprefix bin/,$(TOOLS)) lib/pkgconfig/xrt.pc \
	     lib/cmake/xrt/xrtConfig.cmake lib/cmake/xrt/xrtConfigVersion.cmake

install: $(addprefix $(B)/examples/,$(TOOLS))
	install -d $(DESTDIR)$(PREFIX)/include/xrt $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	  $(DESTDIR)$(PREFIX)/lib/cmake/xrt
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/xrt/
	install -m 755 $(addprefix $(B)/examples/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' xrt.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/xrt.pc
	install -m 644 cmake/xrtConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/xrt/
	sed -e 's|@VERSION@|$(VERSION)|' cmake/xrtConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/xrt/xrtConfigVersion.cmake

# (then the directories install makes, where that left them empty)
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))
	-for d in include/xrt include lib/cmake/xrt lib/cmake lib/pkgconfig lib bin; do \
	  rmdir $(DESTDIR)$(PREFIX)/$$d 2> /dev/null; done; true

clean:
	rm -rf $(B)

# Exact instruction counts of a dispatched call against a direct one.
bench-instructions: $(B)/bench/dispatch
	sh bench/instructions.sh $(B)/bench/dispatch

include tools/tools.mk
include tools/plugin.mk
include tests/doubles/doubles.mk
include examples/fabric.mk
include tests/rdma/rdma.mk
include tests/check.mk
include tests/test.mk
include bench/bench.mk

# last: its first rule must not become the default target
include tests/fuzz/fuzz.mk

# >> test_per_thread_units: a unit without (tests/test_per_thread_units.c) and
# a unit with XRT_API_PER_THREAD_DEFAULT_STREAM (tests/per_thread/caller.c),
# beside the XRT_IMPL unit.
$(B)/plain/test_per_thread_units $(B)/asan/test_per_thread_units $(B)/tsan/test_per_thread_units: \
	tests/per_thread/caller.c tests/per_thread/caller.h
$(B)/plain/test_per_thread_units: LDLIBS := tests/per_thread/caller.c $(LDLIBS)
$(B)/asan/test_per_thread_units: LDLIBS := tests/per_thread/caller.c $(LDLIBS)
$(B)/tsan/test_per_thread_units: LDLIBS := tests/per_thread/caller.c $(LDLIBS)

# >> test_check: a unit built at -O0 without debug information
# (tests/check/nodebug.c), whose call sites the checker names by the symbol table.
CHECK_NODEBUG := -O0 -g0 $(ENABLE) -c
$(B)/plain/check_nodebug.o: tests/check/nodebug.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CHECK_NODEBUG) -o $@ $<
$(B)/asan/check_nodebug.o: tests/check/nodebug.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(SAN) $(CHECK_NODEBUG) -o $@ $<
$(B)/tsan/check_nodebug.o: tests/check/nodebug.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -fsanitize=thread $(CHECK_NODEBUG) -o $@ $<
$(B)/plain/test_check: $(B)/plain/check_nodebug.o
$(B)/asan/test_check: $(B)/asan/check_nodebug.o
$(B)/tsan/test_check: $(B)/tsan/check_nodebug.o
$(B)/plain/test_check: LDLIBS := $(B)/plain/check_nodebug.o $(LDLIBS)
$(B)/asan/test_check: LDLIBS := $(B)/asan/check_nodebug.o $(LDLIBS)
$(B)/tsan/test_check: LDLIBS := $(B)/tsan/check_nodebug.o $(LDLIBS)

# >> test_library: the application (tests/test_library.c) and the library
# (tests/library/lib.c), two translation units, the library on the "good" plugin.
$(B)/plain/test_library $(B)/asan/test_library: tests/library/lib.c tests/library/lib.h
$(B)/plain/test_library: LDLIBS := tests/library/lib.c $(LDLIBS)
$(B)/asan/test_library: LDLIBS := tests/library/lib.c $(LDLIBS)
$(B)/plain/test_library: ENABLE += -DXRT_TEST_PLUGIN_DIR=\"$(B)/plugins\"
$(B)/asan/test_library: ENABLE += -DXRT_TEST_PLUGIN_DIR=\"$(B)/plugins/asan\"
$(B)/plain/test_library: | $(PLUGINS)
$(B)/asan/test_library: | $(PLUGINS_ASAN)
