# xrt: header-only; this Makefile builds the examples, tests and benchmarks.
#   make run      build the examples, run the demo on the default backend and saxpy on the CPU
#   make test     compile matrix + runtime suite (plain, ASan+UBSan) + TSan stress
#   make install  PREFIX=/usr/local: headers and a pkg-config file (xrt.pc)

CC       ?= cc
CXX      ?= c++
PREFIX   ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(CUDA_HOME)/bin/nvcc
B        := build

WARN     := -Wall -Wextra -Werror -pedantic
CFLAGS   ?= -O2 -g
XCFLAGS  := -std=c11 $(WARN) -I.
LDLIBS   := -lpthread

# GPU backends are compiled in when their headers are present; their runtimes
# are loaded at run time, so the binaries run without them.
HAVE_CUDA := $(shell test -f $(CUDA_HOME)/include/cuda_runtime_api.h && echo 1)
HAVE_HIP  := $(shell test -f /usr/include/hip/hip_runtime_api.h && echo 1)
HAVE_NVCC := $(shell test -x $(NVCC) && echo 1)
HAVE_VERBS := $(shell test -f /usr/include/infiniband/verbs.h && echo 1)
ENABLE    := -DXRT_ENABLE_CPU
ifeq ($(HAVE_CUDA),1)
ENABLE    += -DXRT_ENABLE_CUDA -isystem $(CUDA_HOME)/include
endif
ifeq ($(HAVE_HIP),1)
ENABLE    += -DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__
endif

HEADERS  := $(wildcard xrt*.h)
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))
BENCHES  := $(patsubst bench/%.c,%,$(wildcard bench/*.c))
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all run test install examples tests bench bench-instructions clean
all: examples tests

# one binary per test file, three flavours: plain, ASan+UBSan, TSan
$(B)/plain/%: tests/%.c tests/xrt_test.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS) -lcmocka
$(B)/asan/%: tests/%.c tests/xrt_test.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O1 -g $(SAN) $(ENABLE) -o $@ $< $(LDLIBS) -lcmocka
$(B)/tsan/%: tests/%.c tests/xrt_test.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O1 -g -fsanitize=thread $(ENABLE) -o $@ $< $(LDLIBS) -lcmocka

$(B)/examples/%: examples/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS)
$(B)/bench/%: bench/%.c bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -g -DNDEBUG $(ENABLE) -o $@ $< $(LDLIBS)

examples: $(addprefix $(B)/examples/,$(EXAMPLES))

# The kernel benchmark's baseline is the same loop under OpenMP.
$(B)/bench/kernels: XCFLAGS += -fopenmp

# xrt_info lists RDMA devices where the verbs headers are (libibverbs itself
# is loaded at run time, if at all).
ifeq ($(HAVE_VERBS),1)
$(B)/examples/xrt_info: XCFLAGS += -DXRT_INFO_RDMA
endif

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
# object by the system compiler) and once for CUDA GPUs (.cu, built into a
# fatbin where nvcc is); the program offers both images to xrt_module_load.
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
$(SAXPY)/saxpy: examples/saxpy/saxpy.c examples/saxpy/saxpy_args.h $(HEADERS) $(SAXPY_IMAGES)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS)
examples: $(SAXPY)/saxpy

tests: $(addprefix $(B)/plain/,$(TESTS)) $(addprefix $(B)/asan/,$(TESTS)) $(B)/tsan/test_stress $(B)/tsan/test_kernels
bench: $(addprefix $(B)/bench/,$(BENCHES))

run: examples
	$(B)/examples/xrt_info
	$(B)/examples/demo
	XRT_BACKEND=cpu $(SAXPY)/saxpy

test:
	@CC="$(CC)" CXX="$(CXX)" NVCC="$(NVCC)" CUDA_HOME="$(CUDA_HOME)" HAVE_CUDA="$(HAVE_CUDA)" \
	  HAVE_HIP="$(HAVE_HIP)" HAVE_NVCC="$(HAVE_NVCC)" TESTS="$(TESTS)" MAKE="$(MAKE)" sh tests/run.sh

install:
	install -d $(DESTDIR)$(PREFIX)/include/xrt $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/xrt/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(shell sed -n 's/^#define XRT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' xrt.h | paste -sd.)|' \
	  xrt.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/xrt.pc

clean:
	rm -rf $(B)

# Exact instruction counts of a dispatched call against a direct one.
bench-instructions: $(B)/bench/dispatch
	sh bench/instructions.sh $(B)/bench/dispatch

include examples/plugin/plugin.mk
include tests/rdma/rdma.mk
include bench/tools.mk

# last: its first rule must not become the default target
include tests/fuzz/fuzz.mk
