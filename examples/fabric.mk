# SPDX-License-Identifier: MIT
# examples/fabric.mk (included by the Makefile): examples/fabric_rma, xrt
# buffers registered and moved by libfabric. Built where <rdma/fabric.h> is
# (Debian: libfabric-dev); elsewhere `make` says why it skips it. Its explicit
# rule overrides the Makefile's pattern rule for examples: it links -lfabric.
#   make fabric-test   fabric_rma over the tcp provider on loopback (tests/fabric.sh)

HAVE_FABRIC := $(shell $(CC) -E -include rdma/fabric.h -x c /dev/null > /dev/null 2>&1 && echo 1)

.PHONY: fabric-test
ifeq ($(HAVE_FABRIC),1)
$(B)/examples/fabric_rma: examples/fabric_rma.c examples/cli.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS) -lfabric
else
$(B)/examples/fabric_rma:
	@echo "skipped: fabric_rma: <rdma/fabric.h> not found (install libfabric-dev)"
endif

fabric-test:
	@MAKE="$(MAKE)" sh tests/fabric.sh
