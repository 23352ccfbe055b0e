# SPDX-License-Identifier: MIT
# >> doubles (included by the Makefile): stand-ins for the vendor runtimes,
# built from tests/doubles/ into $(B)/doubles/. Each is a shared object
# with the runtime's soname, found through XRT_CUDA_LIBRARY or
# LD_LIBRARY_PATH. (The libibverbs double of the RDMA tests,
# fake_verbs.h, is a header the tests include; the fakes inside test
# programs stay there.)
#   $(B)/doubles/libcudart.so.13       the tests' double: real work, in order
#   $(B)/doubles/stub/libcudart.so.13  the benchmarks' stub: calls do nothing
#   $(B)/doubles/stub/libcuda.so.1     the stub driver beside it
# An entry point of xrt's list that a runtime here does not define answers
# "not supported" (cudart_unsupported.c, weak definitions generated from
# the list).
ifeq ($(HAVE_CUDA),1)
# tests/run.sh runs the suite with cuda as the default backend on the
# double (XRT_CUDA_LIBRARY), as on a machine with a GPU.
$(B)/doubles/libcudart.so.13: tests/doubles/cudart_double.c tests/doubles/cudart_unsupported.c xrt_cuda.h xrt_gpu.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -I. -O2 -g -isystem $(CUDA_HOME)/include -shared -fPIC -Wl,-soname,libcudart.so.13 -o $@ \
	  tests/doubles/cudart_double.c tests/doubles/cudart_unsupported.c -lpthread
tests: $(B)/doubles/libcudart.so.13

# Without a GPU, bench/gpu_overhead run on the stub shows what xrt adds to
# each call.
$(B)/doubles/stub/libcudart.so.13: tests/doubles/cudart_stub.c tests/doubles/cudart_unsupported.c \
		tests/doubles/cudart_stub.map xrt_cuda.h xrt_gpu.h
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -isystem $(CUDA_HOME)/include -shared -fPIC -Wl,-soname,libcudart.so.13 \
	  -Wl,--version-script,tests/doubles/cudart_stub.map -Wl,-z,defs -o $@ tests/doubles/cudart_stub.c \
	  tests/doubles/cudart_unsupported.c
bench: $(B)/doubles/stub/libcudart.so.13

# The driver beside it (libcuda.so.1, found by both sides through
# LD_LIBRARY_PATH): a module loads and an empty kernel launches, so the
# launch rows run on the stub too.
$(B)/doubles/stub/libcuda.so.1: tests/doubles/cuda_stub.c
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O2 -isystem $(CUDA_HOME)/include -shared -fPIC -Wl,-soname,libcuda.so.1 -Wl,-z,defs \
	  -o $@ tests/doubles/cuda_stub.c
bench: $(B)/doubles/stub/libcuda.so.1
endif
