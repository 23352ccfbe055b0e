/* SPDX-License-Identifier: MIT */
/* A shared object without xrt_plugin_register: xrt skips it ("no function"). */
int xrt_test_nosym(void);
int xrt_test_nosym(void) { return 0; }
