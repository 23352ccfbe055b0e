# SPDX-License-Identifier: MIT
# bench/bench.mk: the benchmarks' targets; the Makefile includes it after its
# own rules (it uses B, CC, XCFLAGS, ENABLE, HEADERS, LDLIBS, CUDA_HOME,
# HAVE_CUDA from there). The stub runtime gpu_overhead runs on without a GPU
# is built by tests/doubles/doubles.mk; the tools' targets (make plot) are in
# tools/tools.mk.
#   make bench    build and run every benchmark (bench/run.sh); each prints its ratios
#   make bench-compile   only the compile cost of including xrt.h (and its rows of bench/RESULTS.md)
#   make bench-gpu-instructions   instructions xrt adds to each CUDA call (callgrind, stub runtime)

.PHONY: bench-compile bench-gpu-instructions

# gpu_overhead takes its arguments as the tools do.
$(B)/bench/gpu_overhead: tools/cli.h

# The GPU overhead benchmark calls the CUDA runtime itself, so it links
# libcudart; the XRT_IMPL unit's CUDA backend then finds the same library
# already loaded. Without the toolkit the pattern rule builds a program that
# says so.
ifeq ($(HAVE_CUDA),1)
$(B)/bench/gpu_overhead: bench/gpu_overhead.c bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -g -DNDEBUG $(ENABLE) -DBENCH_CUDART -o $@ $< \
	  -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart $(LDLIBS)

# The stub runtime and driver it runs on without a GPU: tests/doubles/doubles.mk.

# Instructions xrt adds to each GPU call (callgrind on the stub; a few minutes).
bench-gpu-instructions: $(B)/bench/gpu_overhead $(B)/doubles/stub/libcudart.so.13 $(B)/doubles/stub/libcuda.so.1
	@sh bench/gpu_instructions.sh $(B)/bench/gpu_overhead $(B)/doubles/stub
endif

# `make bench`: the Makefile's rule builds the benchmarks, this one runs them.
bench:
	@B=$(B) CC="$(CC)" CXX="$(CXX)" sh bench/run.sh

bench-compile: $(B)/bench/compile_cost
	@rm -f $(B)/bench/compile_figures.tsv
	@CC="$(CC)" CXX="$(CXX)" BENCH_FIGURES=$(CURDIR)/$(B)/bench/compile_figures.tsv $(B)/bench/compile_cost
	@sh bench/table.sh --update $(B)/bench/compile_figures.tsv bench/RESULTS.md

# bench/memcpy with the stream-order checker's test compiled out: what the
# check costs while off, in instructions (bench/check_off.sh).
$(B)/bench/memcpy_unchecked: bench/memcpy.c bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -g -DNDEBUG $(ENABLE) '-DXRT__CHK_ON()=0' -o $@ $< $(LDLIBS)
bench: $(B)/bench/memcpy_unchecked
