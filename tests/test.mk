# SPDX-License-Identifier: MIT
# >> make test (included by the Makefile): the gate. Each section of
# tests/run.sh is a target whose result file under $(TK) holds its lines and
# counts (tests/step.sh's form), so that make runs several sections at once
# (TEST_JOBS, the number of CPUs, unless make was given -j; TEST_JOBS=1 runs
# them one by one) and tests/summary.sh adds their counts up into the same
# last line as `sh tests/run.sh`. `make test` starts from no result; `make
# retest` keeps the results that passed and repeats the sections that failed
# or did not end.
#
# Sections that run make themselves (building examples, plugins, the install)
# go one after another (order-only prerequisites), so that two makes never
# build one file at once; the rest only run what the build section built.
TK          := $(B)/test
TEST_JOBS   ?= $(shell nproc 2> /dev/null || echo 2)
TK_JOBS      = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS))
TK_ENV      := CC="$(CC)" CXX="$(CXX)" NVCC="$(NVCC)" CUDA_HOME="$(CUDA_HOME)" HAVE_CUDA="$(HAVE_CUDA)" \
	       HAVE_HIP="$(HAVE_HIP)" HAVE_NVCC="$(HAVE_NVCC)" HAVE_CMOCKA="$(HAVE_CMOCKA)" HAVE_VERBS="$(HAVE_VERBS)" \
	       SKIP_CMOCKA="$(SKIP_CMOCKA)" TESTS="$(TESTS)" MAKE="$(MAKE)"
# The longest first, so that they start first under -j: the chain of the
# sections that run make (below) is the longest, so its head comes first.
TK_SECTIONS := build matrix trace examples fabric rdma install newcomer suite asan valgrind cuda tsan checked \
	       fuzz fastpath devices4 aarch64
TK_RESULTS  := $(addprefix $(TK)/,$(TK_SECTIONS))

.PHONY: test retest test-run

test:
	@rm -rf $(TK) $(B)/test-logs/times
	@mkdir -p $(TK) && date +%s > $(TK)/started
	@$(MAKE) --no-print-directory $(TK_JOBS) test-run

# The results that passed stay; a failed or missing one runs again.
retest:
	@for r in $(TK_RESULTS); do \
	    [ -f $$r ] && awk '/^counts / && $$3 == 0 { ok = 1 } END { exit !ok }' $$r || rm -f $$r; \
	done
	@mkdir -p $(TK) && date +%s > $(TK)/started
	@$(MAKE) --no-print-directory $(TK_JOBS) test-run

# The wall time since test or retest began, then the summary (the last line).
test-run: $(TK_RESULTS)
	@B=$(B) LOG=$(B)/test-logs sh tests/run.sh footer
	@[ ! -f $(TK)/started ] || echo "time  make test: $$(( $$(date +%s) - $$(cat $(TK)/started) )) s"
	@sh tests/summary.sh $(TK_RESULTS)

# '+': the build section's make shares this make's job slots.
$(TK)/build:
	+@$(TK_ENV) sh tests/run.sh section build $@
$(filter-out $(TK)/build $(TK)/matrix,$(TK_RESULTS)): | $(TK)/build
$(TK)/%:
	@$(TK_ENV) sh tests/run.sh section $* $@

# the sections that run make, in a chain (checked runs what examples built;
# newcomer's make install in the tree finds the tools examples built)
$(TK)/examples: | $(TK)/trace
$(TK)/checked: | $(TK)/examples
$(TK)/newcomer: | $(TK)/examples
$(TK)/fabric: | $(TK)/examples
$(TK)/rdma: | $(TK)/fabric
$(TK)/install: | $(TK)/rdma

# Two job slots (.ci/run's machines): make does not always give a freed slot
# to the chain's next section, which then waits behind the others; two
# chains of about equal length (measured on 2 cores, 2026-12-02: the chain
# above then tsan, about 1340 s; valgrind, cuda, checked, newcomer, suite,
# asan and the short ones, about 1290 s) keep one slot each. With more
# slots the sections stay free.
ifeq ($(TEST_JOBS),2)
$(TK)/tsan: | $(TK)/install
$(TK)/cuda: | $(TK)/valgrind
$(TK)/checked: | $(TK)/cuda
$(TK)/newcomer: | $(TK)/checked
$(TK)/suite: | $(TK)/newcomer
$(TK)/asan: | $(TK)/suite
$(TK)/fuzz: | $(TK)/asan
$(TK)/fastpath: | $(TK)/fuzz
$(TK)/devices4: | $(TK)/fastpath
$(TK)/aarch64: | $(TK)/devices4
endif
