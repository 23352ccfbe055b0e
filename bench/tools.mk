# SPDX-License-Identifier: MIT
# bench/tools.mk: the tools' and benchmarks' targets; the Makefile includes it after
# its own rules (it uses B, CC, XCFLAGS, ENABLE, HEADERS, LDLIBS, CUDA_HOME,
# HAVE_CUDA from there).
#   make plot     measure with examples/bandwidth and draw build/bandwidth.png and .svg
#                 (BANDWIDTH_ARGS="--backend cuda" to choose; BANDWIDTH_CSV=file to draw
#                 a CSV measured elsewhere; PLOT_OUT=path to write elsewhere)
#   make bench    build and run every benchmark (bench/run.sh); each prints its ratios
#   make bench-compile   only the compile cost of including xrt.h
#   make bench-gpu-instructions   instructions xrt adds to each CUDA call (callgrind, stub runtime)

GNUPLOT        ?= gnuplot
BANDWIDTH_ARGS ?=
BANDWIDTH_CSV  ?= $(B)/bandwidth.csv
PLOT_OUT       ?= $(B)/bandwidth

.PHONY: plot bench-compile bench-gpu-instructions FORCE

# The command-line tools share their option parsing; bandwidth measures with
# the benchmarks' clock and median.
$(B)/examples/xrt_info $(B)/examples/bandwidth $(B)/examples/rdma_pingpong $(B)/bench/gpu_overhead: examples/cli.h
$(B)/examples/bandwidth: bench/bench.h

# Measured again on every `make plot`: a sweep takes a few seconds.
$(B)/bandwidth.csv: $(B)/examples/bandwidth FORCE
	$(B)/examples/bandwidth --csv $(BANDWIDTH_ARGS) > $@.tmp
	mv $@.tmp $@

plot: $(BANDWIDTH_CSV) bench/bandwidth.gp
	@mkdir -p $(dir $(PLOT_OUT))
	$(GNUPLOT) -e "csv='$(BANDWIDTH_CSV)'; out='$(PLOT_OUT)'" bench/bandwidth.gp
	@echo "plot: $(PLOT_OUT).png $(PLOT_OUT).svg"

# The GPU overhead benchmark calls the CUDA runtime itself, so it links
# libcudart; the XRT_IMPL unit's CUDA backend then finds the same library
# already loaded. Without the toolkit the pattern rule builds a program that
# says so.
ifeq ($(HAVE_CUDA),1)
$(B)/bench/gpu_overhead: bench/gpu_overhead.c bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -g -DNDEBUG $(ENABLE) -DBENCH_CUDART -o $@ $< \
	  -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart $(LDLIBS)

# A runtime whose calls do nothing: without a GPU, gpu_overhead run on it
# shows what xrt adds to each call. Every other entry point of xrt's list
# answers "not supported" (cudart_unsupported.c, weak definitions generated
# from the list).
$(B)/bench/stub/libcudart.so.13: bench/stub/cudart_stub.c bench/stub/cudart_unsupported.c bench/stub/cudart_stub.map \
		xrt_cuda.h xrt_gpu.h
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -isystem $(CUDA_HOME)/include -shared -fPIC -Wl,-soname,libcudart.so.13 \
	  -Wl,--version-script,bench/stub/cudart_stub.map -Wl,-z,defs -o $@ bench/stub/cudart_stub.c \
	  bench/stub/cudart_unsupported.c
bench: $(B)/bench/stub/libcudart.so.13

# The driver beside it (libcuda.so.1, found by both sides through
# LD_LIBRARY_PATH): a module loads and an empty kernel launches, so the
# launch rows run on the stub too.
$(B)/bench/stub/libcuda.so.1: bench/stub/cuda_stub.c
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -isystem $(CUDA_HOME)/include -shared -fPIC -Wl,-soname,libcuda.so.1 -Wl,-z,defs \
	  -o $@ bench/stub/cuda_stub.c
bench: $(B)/bench/stub/libcuda.so.1

# Instructions xrt adds to each GPU call (callgrind on the stub; a few minutes).
bench-gpu-instructions: $(B)/bench/gpu_overhead $(B)/bench/stub/libcudart.so.13 $(B)/bench/stub/libcuda.so.1
	@sh bench/gpu_instructions.sh $(B)/bench/gpu_overhead $(B)/bench/stub
endif

# `make bench`: the Makefile's rule builds the benchmarks, this one runs them.
bench:
	@B=$(B) CC="$(CC)" CXX="$(CXX)" sh bench/run.sh

bench-compile: $(B)/bench/compile_cost
	@CC="$(CC)" CXX="$(CXX)" $(B)/bench/compile_cost

FORCE:

# bench/memcpy with the stream-order checker's test compiled out: what the
# check costs while off, in instructions (bench/check_off.sh).
$(B)/bench/memcpy_unchecked: bench/memcpy.c bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -g -DNDEBUG $(ENABLE) '-DXRT__CHK_ON()=0' -o $@ $< $(LDLIBS)
bench: $(B)/bench/memcpy_unchecked
