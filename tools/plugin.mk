# SPDX-License-Identifier: MIT
# >> plugins (included by the Makefile): the tracing backend of tools/trace.c
# and the small plugins that tests/test_plugin.c loads. Each is a shared object
# that includes xrt.h for its types only (no XRT_IMPL). The ASan test programs
# load copies built with the sanitizers, from $(B)/plugins/asan.
PLUGIN_CFLAGS := -std=c11 $(WARN) -I. -shared -fPIC
PLUGINS       := $(B)/plugins/libxrt_trace.so \
                 $(patsubst tests/plugins/%.c,$(B)/plugins/test_%.so,$(wildcard tests/plugins/*.c))
PLUGINS_ASAN  := $(patsubst $(B)/plugins/%,$(B)/plugins/asan/%,$(PLUGINS))

$(B)/plugins/libxrt_trace.so: tools/trace.c xrt.h xrt_backends.h
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) $(CFLAGS) -o $@ $<
$(B)/plugins/test_%.so: tests/plugins/%.c tests/plugins/fixture.h xrt.h xrt_backends.h
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS_PLUGIN)
$(B)/plugins/asan/libxrt_trace.so: tools/trace.c xrt.h xrt_backends.h
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -O1 -g $(SAN) -o $@ $<
$(B)/plugins/asan/test_%.so: tests/plugins/%.c tests/plugins/fixture.h xrt.h xrt_backends.h
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -O1 -g $(SAN) -o $@ $< $(LDLIBS_PLUGIN)

.PHONY: plugins
plugins: $(PLUGINS) $(PLUGINS_ASAN)
examples: $(B)/plugins/libxrt_trace.so
tests: plugins

# The plugin with a missing dependency: linked against a stub that only this
# link sees (no rpath), so that loading it fails with the loader's reason.
$(B)/plugins/absent/libxrt_test_absent.so:
	@mkdir -p $(@D)
	printf 'int xrt_test_absent(void);\nint xrt_test_absent(void) { return 1; }\n' | $(CC) -shared -fPIC -x c -o $@ -
$(B)/plugins/test_needsdep.so $(B)/plugins/asan/test_needsdep.so: $(B)/plugins/absent/libxrt_test_absent.so
$(B)/plugins/test_needsdep.so: LDLIBS_PLUGIN = -L$(B)/plugins/absent -lxrt_test_absent
$(B)/plugins/asan/test_needsdep.so: LDLIBS_PLUGIN = -L$(B)/plugins/absent -lxrt_test_absent

# The forwarding macro's plugin: quiet under -Wshadow too (its forwarders bind `self` again).
$(B)/plugins/test_forward.so $(B)/plugins/asan/test_forward.so: PLUGIN_CFLAGS += -Wshadow

# tests/test_plugin.c finds the plugins of its own flavour here.
$(B)/plain/test_plugin: ENABLE += -DXRT_TEST_PLUGIN_DIR=\"$(B)/plugins\"
$(B)/asan/test_plugin: ENABLE += -DXRT_TEST_PLUGIN_DIR=\"$(B)/plugins/asan\"
$(B)/plain/test_plugin: | $(PLUGINS)
$(B)/asan/test_plugin: | $(PLUGINS_ASAN)

# The known program whose timeline tests/trace.sh checks.
$(B)/trace/timeline: tests/trace/timeline.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS)
$(B)/trace/timeline_asan: tests/trace/timeline.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) -O1 -g $(SAN) $(ENABLE) -o $@ $< $(LDLIBS)
# The known racy program whose marks tests/trace.sh checks.
$(B)/trace/race: tests/trace/race.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(XCFLAGS) $(CFLAGS) $(ENABLE) -o $@ $< $(LDLIBS)
