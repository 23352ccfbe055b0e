# SPDX-License-Identifier: MIT
# examples/fabric.mk (included by the Makefile): examples/fabric_rma, xrt
# buffers registered and moved by libfabric. Built where <rdma/fabric.h> is
# (Debian: libfabric-dev); elsewhere `make` says why it skips it. Its explicit
# rule overrides the Makefile's pattern rule for examples: it links -lfabric.
# examples/a2f_fabric (a2f's transfer over libfabric, beside libfabric alone)
# is built the same way.
#   make fabric-test   fabric_rma and a2f_fabric over the tcp provider on loopback (tests/fabric.sh)

HAVE_FABRIC := $(if $(call given,HAVE_FABRIC),,$(shell $(CC) -E -include rdma/fabric.h -x c /dev/null > /dev/null 2>&1 \
	       && echo 1))

.PHONY: fabric-test
ifeq ($(HAVE_FABRIC)$(HAVE_VERBS),11)
$(B)/examples/fabric_rma: examples/fabric_rma.c examples/fabric_setup.h tools/cli.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS) -lfabric
$(B)/examples/a2f_fabric: examples/a2f_fabric.c examples/fabric_setup.h tools/cli.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS) -lfabric
# tests/test_fabric.c: registration with a libfabric domain (xrt_rdma_open_fabric),
# plain and under ASan+UBSan; tests/fabric.sh runs both.
$(B)/plain/test_fabric: tests/test_fabric.c tests/xrt_test.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS) -lcmocka -lfabric
$(B)/asan/test_fabric: tests/test_fabric.c tests/xrt_test.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O1 -g $(SAN) $(ENABLE) -o $@ $< $(LDLIBS) -lcmocka -lfabric
else
$(B)/examples/fabric_rma $(B)/examples/a2f_fabric $(B)/plain/test_fabric $(B)/asan/test_fabric:
	@echo "skipped: $(@F): <rdma/fabric.h> or <infiniband/verbs.h> not found (install libfabric-dev and libibverbs-dev)"
endif

fabric-test:
	@MAKE="$(MAKE)" sh tests/fabric.sh
