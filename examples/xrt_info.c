/* xrt_info: lists the compiled-in backends, whether each is available (and
   why not), and the devices of every available backend. */
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>

static const char *const cap_names[] = {"pinned-host", "malloc-async", "host-func", "event-timing",
                                        "native-handles"};

static void print_caps(void)
{
    unsigned caps = 0, i;
    if (xrt_get_capabilities(&caps) != XRT_SUCCESS) return;
    printf("    capabilities:");
    for (i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
        if (caps & (1u << i)) printf(" %s", cap_names[i]);
    printf("\n");
}

static void print_devices(const char *backend)
{
    int n = 0, d;
    if (xrt_set_backend(backend) != XRT_SUCCESS || xrt_get_device_count(&n) != XRT_SUCCESS) return;
    print_caps();
    for (d = 0; d < n; d++) {
        xrt_device_prop p;
        size_t free_b = 0, total_b = 0;
        if (xrt_get_device_properties(&p, d) != XRT_SUCCESS) continue;
        if (xrt_set_device(d) == XRT_SUCCESS) xrt_mem_get_info(&free_b, &total_b);
        printf("    device %d: %s\n", d, p.name);
        printf("      arch %s, %d multiprocessors, warp size %d\n", p.arch, p.multiprocessor_count, p.warp_size);
        printf("      memory %.1f GiB total, %.1f GiB free\n", (double)p.total_memory / (1 << 30),
               (double)free_b / (1 << 30));
    }
}

int main(void)
{
    int n = 0, i, version = 0;
    const char *dflt = NULL;
    xrt_status st = xrt_init();
    xrt_runtime_get_version(&version);
    printf("xrt %d.%d.%d\n", version / 10000, version / 100 % 100, version % 100);
    if (st == XRT_SUCCESS) xrt_get_backend(&dflt);
    printf("default backend: %s\n", dflt ? dflt : xrt_get_last_error_string());
    xrt_backend_count(&n);
    for (i = 0; i < n; i++) {
        xrt_backend_info info;
        if (xrt_backend_get_info(i, &info) != XRT_SUCCESS) continue;
        if (!info.available) {
            printf("  %-5s unavailable: %s\n", info.name, info.reason);
            continue;
        }
        printf("  %-5s available\n", info.name);
        print_devices(info.name);
    }
    xrt_shutdown();
    return st == XRT_SUCCESS ? 0 : 1;
}
