# SPDX-License-Identifier: MIT
# >> tools (included by the Makefile): what the programs of tools/ need beyond
# the Makefile's rule (it uses B, XCFLAGS, HAVE_VERBS from there). The tracing
# plugin is built by tools/plugin.mk.
#   make plot     measure with tools/bandwidth and draw build/bandwidth.png and .svg
#                 (BANDWIDTH_ARGS="--backend cuda" to choose; BANDWIDTH_CSV=file to draw
#                 a CSV measured elsewhere; PLOT_OUT=path to write elsewhere)

GNUPLOT        ?= gnuplot
BANDWIDTH_ARGS ?=
BANDWIDTH_CSV  ?= $(B)/bandwidth.csv
PLOT_OUT       ?= $(B)/bandwidth

.PHONY: plot FORCE

# xrt_info lists RDMA devices where the verbs headers are (libibverbs itself
# is loaded at run time, if at all).
ifeq ($(HAVE_VERBS),1)
$(B)/examples/xrt_info: XCFLAGS += -DXRT_INFO_RDMA
endif

# The examples that take arguments share the tools' convention; bandwidth
# measures with the benchmarks' clock and median.
$(B)/examples/rdma_pingpong: tools/cli.h
$(B)/examples/bandwidth: bench/bench.h

# bandwidth under ASan and UBSan, for tests/tools.sh (many devices' pairs).
$(B)/examples/asan/bandwidth: tools/bandwidth.c tools/cli.h bench/bench.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(SAN_OPT) $(SAN) $(ENABLE) -o $@ $< $(LDLIBS)

# Measured again on every `make plot`: a sweep takes a few seconds.
$(B)/bandwidth.csv: $(B)/examples/bandwidth FORCE
	$(B)/examples/bandwidth --csv $(BANDWIDTH_ARGS) > $@.tmp
	mv $@.tmp $@

plot: $(BANDWIDTH_CSV) tools/bandwidth.gp
	@mkdir -p $(dir $(PLOT_OUT))
	$(GNUPLOT) -e "csv='$(BANDWIDTH_CSV)'; out='$(PLOT_OUT)'" tools/bandwidth.gp
	@echo "plot: $(PLOT_OUT).png $(PLOT_OUT).svg"

FORCE:
