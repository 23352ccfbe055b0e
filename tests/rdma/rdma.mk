# SPDX-License-Identifier: MIT
# tests/rdma/rdma.mk - builds and tests of xrt_rdma.h. Included by the
# Makefile, or used alone: make -f tests/rdma/rdma.mk TARGET
#
#   rdma-programs   the programs the soft-RoCE VM runs: the test suite, the
#                   pingpong example, the cache benchmark (linked -libverbs:
#                   they make queue pairs; xrt itself dlopens libibverbs)
#   test-rdma       runs them on soft-RoCE in two throw-away VMs
#                   (tests/rdma/run.sh; "skipped: <reason>" where it cannot)
#   rdma-compile    xrt_rdma.h as C11 and C++ with gcc, clang, g++ and
#                   clang++, both linking modes (tests/rdma/compile.sh)
#
# tests/test_rdma.c (no device needed) is an ordinary tests/test_*.c program.
# The explicit rules for examples/rdma_pingpong and bench/rdma_cache override
# the Makefile's pattern rules for examples and benchmarks: they need -libverbs.

B ?= build
RDMA_ENABLE = $(if $(ENABLE),$(ENABLE),-DXRT_ENABLE_CPU) # the sources define XRT_ENABLE_RDMA
RDMA_CFLAGS = -std=c11 -Wall -Wextra -Werror -pedantic -I. -O2 -g
RDMA_LIBS = -lpthread -libverbs
RDMA_HEADERS = $(wildcard xrt*.h)
RDMA_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
RDMA_PROGRAMS = $(B)/rdma/test_rdma_vm $(B)/rdma/test_rdma_vm_asan $(B)/rdma/test_rdma_vm_tsan \
                $(B)/examples/rdma_pingpong $(B)/bench/rdma_cache

.PHONY: rdma-programs test-rdma rdma-compile

$(B)/rdma/test_rdma_vm: tests/rdma/test_rdma_vm.c tests/rdma/rc.h tests/xrt_test.h $(RDMA_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(RDMA_CFLAGS) $(RDMA_ENABLE) -o $@ $< $(RDMA_LIBS) -lcmocka

# the suite under ASan+UBSan and under TSan, as the other test programs
$(B)/rdma/test_rdma_vm_asan: tests/rdma/test_rdma_vm.c tests/rdma/rc.h tests/xrt_test.h $(RDMA_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(RDMA_CFLAGS) -O1 $(RDMA_SAN) $(RDMA_ENABLE) -o $@ $< $(RDMA_LIBS) -lcmocka
$(B)/rdma/test_rdma_vm_tsan: tests/rdma/test_rdma_vm.c tests/rdma/rc.h tests/xrt_test.h $(RDMA_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(RDMA_CFLAGS) -O1 -fsanitize=thread $(RDMA_ENABLE) -o $@ $< $(RDMA_LIBS) -lcmocka

$(B)/examples/rdma_pingpong: examples/rdma_pingpong.c $(RDMA_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(RDMA_CFLAGS) $(RDMA_ENABLE) -o $@ $< $(RDMA_LIBS)

$(B)/bench/rdma_cache: bench/rdma_cache.c bench/bench.h $(RDMA_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(RDMA_CFLAGS) -DNDEBUG $(RDMA_ENABLE) -o $@ $< $(RDMA_LIBS)

rdma-programs: $(RDMA_PROGRAMS)

test-rdma:
	@MAKE="$(MAKE)" sh tests/rdma/run.sh

rdma-compile:
	@sh tests/rdma/compile.sh
