# SPDX-License-Identifier: MIT
# libFuzzer targets (clang -fsanitize=fuzzer,address,undefined): tests/fuzz/*.c.
# The Makefile includes this file; it also works alone (make -f tests/fuzz/fuzz.mk ...).
#   make fuzz         each target for FUZZ_SECONDS (default 60), starting from its
#                     seed corpus (tests/fuzz/corpus/<target>/); what it learns goes to
#                     build/fuzz/corpus/<target>/, a failing input to build/fuzz/artifacts/<target>/
#   make fuzz-seeds   each target once over its seed corpus (tests/run.sh runs this)
# Debian's clang only recommends libFuzzer's package: install libclang-rt-14-dev
# (or libclang-rt-dev); tests/fuzz/have_libfuzzer.sh checks for it.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     ?= $(if $(B),$(B),build)/fuzz
FUZZ_FLAGS   := -std=c11 -Wall -Wextra -Werror -pedantic -g -O1 -I. \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# fuzz_env parses the variables of every backend the build enables (the
# Makefile's ENABLE when included); fuzz_api runs on the CPU backend.
FUZZ_ENABLE  ?= $(if $(ENABLE),$(ENABLE),-DXRT_ENABLE_CPU)
FUZZ_TARGETS := fuzz_env fuzz_api
# Huge allocations are part of the inputs; the CUDA runtime needs the shadow gap.
FUZZ_ENV     := ASAN_OPTIONS=allocator_may_return_null=1:protect_shadow_gap=0:detect_leaks=1
FUZZ_HEADERS := $(wildcard xrt*.h)

$(FUZZ_DIR)/fuzz_env: tests/fuzz/fuzz_env.c $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_ENABLE) -o $@ $< -lpthread
$(FUZZ_DIR)/fuzz_api: tests/fuzz/fuzz_api.c $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< -lpthread
# fuzz_hip_image: the HIP backend's image reader, where the HIP headers are.
FUZZ_HIP     := $(if $(call given,FUZZ_HIP),,$(shell printf '\043include <hip/hip_runtime_api.h>\n' | $(FUZZ_CC) \
		-D__HIP_PLATFORM_AMD__ -E -x c - > /dev/null 2>&1 && echo 1))
ifeq ($(FUZZ_HIP),1)
FUZZ_TARGETS += fuzz_hip_image
endif
$(FUZZ_DIR)/fuzz_hip_image: tests/fuzz/fuzz_hip_image.c $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__ -o $@ $< -lpthread

# fuzz_cuda_image: the CUDA backend's image reader, where the CUDA headers are.
FUZZ_CUDA_HOME ?= $(if $(CUDA_HOME),$(CUDA_HOME),/usr/local/cuda)
ifneq ($(wildcard $(FUZZ_CUDA_HOME)/include/cuda.h),)
FUZZ_TARGETS += fuzz_cuda_image
endif
$(FUZZ_DIR)/fuzz_cuda_image: tests/fuzz/fuzz_cuda_image.c $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DXRT_ENABLE_CUDA -isystem $(FUZZ_CUDA_HOME)/include -o $@ $< -lpthread

.PHONY: fuzz fuzz-seeds fuzz-build $(addprefix fuzz-run-,$(FUZZ_TARGETS))
fuzz-build: $(addprefix $(FUZZ_DIR)/,$(FUZZ_TARGETS))

# one target per fuzzer, so that `make -j2 fuzz` runs two at once
fuzz: $(addprefix fuzz-run-,$(FUZZ_TARGETS))
$(addprefix fuzz-run-,$(FUZZ_TARGETS)): fuzz-run-%: $(FUZZ_DIR)/%
	@mkdir -p $(FUZZ_DIR)/corpus/$* $(FUZZ_DIR)/artifacts/$*
	@echo "== $* for $(FUZZ_SECONDS) s"
	@$(FUZZ_ENV) $(FUZZ_DIR)/$* -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$*/ $(FUZZ_DIR)/corpus/$* tests/fuzz/corpus/$*

fuzz-seeds: fuzz-build
	@bad=0; for t in $(FUZZ_TARGETS); do \
	    n=0; for f in tests/fuzz/corpus/$$t/*; do \
	        n=$$((n + 1)); \
	        if ! $(FUZZ_ENV) $(FUZZ_DIR)/$$t -timeout=20 $$f > $(FUZZ_DIR)/$$t.seed.log 2>&1; then \
	            bad=$$((bad + 1)); echo "FAIL  $$t $$f"; \
	            grep -E '^(fuzz_[a-z]+:|==[0-9]+==ERROR|SUMMARY)' $(FUZZ_DIR)/$$t.seed.log | sed 's/^/      /'; \
	        fi; \
	    done; \
	    echo "$$t: $$n seeds run"; \
	done; [ $$bad -eq 0 ]
