/* SPDX-License-Identifier: MIT */
/* The nearest RDMA device: xrt_rdma_device_affinity and the order in which
   xrt_rdma_open(ctx, NULL) tries devices, on fake sysfs trees built in a
   temporary directory (symlinks as the kernel makes them). A GPU's PCI
   address comes from its backend: on a machine without one, make test runs
   this on the CUDA runtime test double (tests/doubles/cudart_double.c),
   whose device sits at 0000:41:00.0; the trees put it wherever a layout
   needs it. */
#define XRT_ENABLE_RDMA
#define XRT_IMPL /* white-box: the RDMA runtime's state and a fake sysfs tree */
#include "xrt_test.h"
#include "xrt_rdma.h" /* after xrt.h: the core does not include it */

#include <sys/stat.h>

/* >> every log line, joined */
static char nic_log[16384];

static void nic_log_fn(xrt_log_level level, const char *msg, void *user)
{
    size_t used = strlen(nic_log);
    (void)user;
    xrt_test_log_fn(level, msg, NULL);
    snprintf(nic_log + used, sizeof nic_log - used, "%s\n", msg);
}

static void nic_log_capture(void)
{
    nic_log[0] = 0;
    memset(&xrt_test_log, 0, sizeof xrt_test_log);
    xrt_set_log_callback(nic_log_fn, NULL);
    xrt_set_log_level(XRT_LOG_DEBUG);
}

/* >> fake sysfs trees */
static char root[256];
static char gpu[32]; /* the device's PCI address, "0000:41:00.0" */

static void mkdirs(const char *rel)
{
    char path[1024], *p;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0700);
            *p = '/';
        }
    mkdir(path, 0700);
}

static void put(const char *rel, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

static void link_at(const char *target, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_int_equal(symlink(target, path), 0);
}

/* A PCI function at devices/<path> (its last component is its address), with
   its numa_node ("" for none). */
static void function_at(const char *path, const char *numa)
{
    char rel[512];
    snprintf(rel, sizeof rel, "devices/%s", path);
    mkdirs(rel);
    if (numa[0]) {
        snprintf(rel, sizeof rel, "devices/%s/numa_node", path);
        put(rel, numa);
    }
}

/* The GPU below `parent` ("pci0000:00/0000:00:01.0/..."), linked from bus/pci/devices. */
static void gpu_at(const char *parent, const char *numa)
{
    char path[512], target[600], rel[128];
    snprintf(path, sizeof path, "%s/%s", parent, gpu);
    function_at(path, numa);
    mkdirs("bus/pci/devices");
    snprintf(target, sizeof target, "../../../devices/%s", path);
    snprintf(rel, sizeof rel, "bus/pci/devices/%s", gpu);
    link_at(target, rel);
}

/* An RDMA device `name` on the function devices/<path>: class/infiniband/<name>
   links to devices/<path>/infiniband/<name>, whose device link leads back up. */
static void nic_at(const char *name, const char *path, const char *numa)
{
    char rel[600], target[600];
    const char *addr = strrchr(path, '/') + 1;
    function_at(path, numa);
    snprintf(rel, sizeof rel, "devices/%s/infiniband/%s", path, name);
    mkdirs(rel);
    snprintf(rel, sizeof rel, "devices/%s/infiniband/%s/device", path, name);
    snprintf(target, sizeof target, "../../../%s", addr);
    link_at(target, rel);
    mkdirs("class/infiniband");
    snprintf(rel, sizeof rel, "class/infiniband/%s", name);
    snprintf(target, sizeof target, "../../devices/%s/infiniband/%s", path, name);
    link_at(target, rel);
}

static void nodes(int n)
{
    char rel[64];
    int i;
    for (i = 0; i < n; i++) {
        snprintf(rel, sizeof rel, "devices/system/node/node%d", i);
        mkdirs(rel);
    }
}

static int rm_tree(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    return system(cmd);
}

/* A new, empty tree; the device on cuda (skips where there is none). */
static int tree_setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    xrt_device_prop prop;
    (void)state;
    snprintf(root, sizeof root, "%s/xrt-nic-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) return -1;
    xrt__sysfs_root = root;
    gpu[0] = 0;
    if (xrt_set_backend("cuda") == XRT_SUCCESS && xrt_set_device(0) == XRT_SUCCESS &&
        xrt_get_device_properties(&prop, 0) == XRT_SUCCESS)
        snprintf(gpu, sizeof gpu, "%04x:%02x:%02x.0", (unsigned)prop.pci_domain_id, (unsigned)prop.pci_bus_id,
                 (unsigned)prop.pci_device_id);
    (void)xrt_get_last_error();
    nic_log_capture();
    return 0;
}

static int tree_teardown(void **state)
{
    (void)state;
    xrt__sysfs_root = "/sys";
    xrt_set_log_callback(NULL, NULL);
    xrt_set_log_level(XRT_LOG_ENV);
    return rm_tree(root) == 0 ? 0 : -1;
}

#define NEEDS_GPU() SKIP_UNLESS(gpu[0], "cuda has no device here (make test runs this on the CUDA runtime test double)")

static xrt_rdma_affinity affinity(const char *name)
{
    xrt_rdma_affinity a = (xrt_rdma_affinity)-1;
    OK(xrt_rdma_device_affinity(0, name, &a));
    return a;
}

/* >> xrt_rdma_open's order, through a stand-in for libibverbs' device list:
   every open fails, naming the device tried first. */
static struct ibv_device fake_devs[8];
static struct ibv_device *fake_list[9];
static int fake_n;

static struct ibv_device **fake_get_device_list(int *n)
{
    int i;
    for (i = 0; i < fake_n; i++) fake_list[i] = &fake_devs[i];
    fake_list[fake_n] = NULL;
    *n = fake_n;
    return fake_list;
}
static void fake_free_device_list(struct ibv_device **list) { (void)list; }
static const char *fake_get_device_name(struct ibv_device *d) { return d->name; }
static struct ibv_context *fake_open_device(struct ibv_device *d)
{
    (void)d;
    errno = ENODEV;
    return NULL;
}

/* The detail of xrt_rdma_open(ctx, NULL) over devices named in `names`
   (blank-separated, in libibverbs' order). */
static const char *open_first(const char *names)
{
    static char detail[512];
    __typeof__(xrt__rdma_rt) saved = xrt__rdma_rt;
    int state = xrt__rdma_state, n = 0;
    char copy[256], *save = NULL, *tok;
    xrt_rdma_ctx ctx = (xrt_rdma_ctx)1;
    snprintf(copy, sizeof copy, "%s", names);
    for (tok = strtok_r(copy, " ", &save); tok && n < 8; tok = strtok_r(NULL, " ", &save))
        snprintf(fake_devs[n++].name, sizeof fake_devs[0].name, "%s", tok);
    fake_n = n;
    xrt__rdma_rt.get_device_list = fake_get_device_list;
    xrt__rdma_rt.free_device_list = fake_free_device_list;
    xrt__rdma_rt.get_device_name = fake_get_device_name;
    xrt__rdma_rt.open_device = fake_open_device;
    xrt__rdma_state = 1;
    assert_int_equal(xrt_rdma_open(&ctx, NULL), XRT_ERROR_NO_DEVICE);
    assert_null(ctx);
    snprintf(detail, sizeof detail, "%s", xrt_get_last_error_string());
    xrt__rdma_rt = saved;
    xrt__rdma_state = state;
    return detail;
}

#define OPENS_FIRST(names, first) \
    assert_non_null(strstr(open_first(names), "xrt_rdma_open: " first ": ibv_open_device: No such device (ENODEV=19)"))

/* >> layouts */
static void same_switch_is_pix(void **state)
{
    (void)state;
    NEEDS_GPU();
    nodes(2);
    gpu_at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", "0\n");
    nic_at("mlx5_1", "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:e1:00.0", "0\n");
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "0\n");
    nic_at("mlx5_2", "pci0000:80/0000:80:01.0/0000:e2:00.0", "1\n");
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_PIX);
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_PHB);
    assert_int_equal(affinity("mlx5_2"), XRT_RDMA_AFFINITY_SYS);
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_0 mlx5_1 mlx5_2", "mlx5_1");
    assert_non_null(strstr(nic_log, "xrt_rdma_open: nearest to device 0 (pci0000:00, "));
    assert_non_null(strstr(nic_log, ", NUMA node 0) first: mlx5_1 PIX, mlx5_0 PHB, mlx5_2 SYS\n"));
}

/* Functions of one device under a root port: PIX too. */
static void functions_of_one_device_are_pix(void **state)
{
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0", "");
    nic_at("mlx5_0", "pci0000:00/0000:00:01.0/0000:41:00.1", "");
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_PIX);
}

static void two_switches_under_one_root_port_are_pxb(void **state)
{
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0", "0\n");
    nic_at("mlx5_1", "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:e1:00.0", "0\n");
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "0\n");
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_PXB);
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_PHB);
    OPENS_FIRST("mlx5_0 mlx5_1", "mlx5_1");
}

static void two_root_complexes_on_one_node_are_node(void **state)
{
    (void)state;
    NEEDS_GPU();
    nodes(2);
    gpu_at("pci0000:00/0000:00:01.0", "0\n");
    nic_at("mlx5_0", "pci0000:80/0000:80:01.0/0000:e0:00.0", "1\n");
    nic_at("mlx5_1", "pci0000:40/0000:40:01.0/0000:e1:00.0", "0\n");
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_SYS);
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_NODE);
    OPENS_FIRST("mlx5_0 mlx5_1", "mlx5_1");
}

static void two_numa_nodes_are_sys(void **state)
{
    (void)state;
    NEEDS_GPU();
    nodes(2);
    gpu_at("pci0000:80/0000:80:01.0", "1\n");
    nic_at("mlx5_0", "pci0000:00/0000:00:01.0/0000:e0:00.0", "0\n");
    nic_at("mlx5_1", "pci0000:c0/0000:c0:01.0/0000:e1:00.0", "1\n");
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_SYS);
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_NODE);
    OPENS_FIRST("mlx5_0 mlx5_1", "mlx5_1");
}

/* numa_node -1 (or none): the same node where the machine has one, else SYS. */
static void unknown_numa_node(void **state)
{
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0", "0\n");
    nic_at("mlx5_0", "pci0000:40/0000:40:01.0/0000:e0:00.0", "-1\n");
    nic_at("mlx5_1", "pci0000:80/0000:80:01.0/0000:e1:00.0", "");
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_NODE); /* no devices/system/node: one node */
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_NODE);
    nodes(1);
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_NODE);
    nodes(2);
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_SYS);
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_SYS);
}

/* Garbage in numa_node reads as "not known". */
static void garbage_numa_node_is_unknown(void **state)
{
    static const char *const bad[] = {"abc\n", "1x\n", "99999999999999999999\n", "", "\n", " \n", "4096\n"};
    char rel[128];
    size_t i;
    (void)state;
    NEEDS_GPU();
    nodes(2);
    gpu_at("pci0000:00/0000:00:01.0", "0\n");
    nic_at("mlx5_0", "pci0000:40/0000:40:01.0/0000:e0:00.0", "0\n");
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_NODE);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(rel, sizeof rel, "devices/pci0000:40/0000:40:01.0/0000:e0:00.0/numa_node");
        put(rel, bad[i]);
        assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_SYS);
    }
}

/* Equals go by name, whatever libibverbs' order. */
static void ties_go_to_the_lowest_name(void **state)
{
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", "");
    nic_at("mlx5_2", "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:e2:00.0", "");
    nic_at("mlx5_1", "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:e1:00.0", "");
    nic_at("mlx5_0", "pci0000:00/0000:00:03.0/0000:e0:00.0", "");
    OPENS_FIRST("mlx5_2 mlx5_0 mlx5_1", "mlx5_1");
    assert_non_null(strstr(nic_log, "first: mlx5_1 PIX, mlx5_2 PIX, mlx5_0 PHB\n"));
}

/* >> what sysfs cannot tell: no crash, a debug line, the device ranks last */
static void no_nic_is_not_found(void **state)
{
    xrt_rdma_affinity a;
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0", "");
    FAILS(xrt_rdma_device_affinity(0, "mlx5_0", &a), XRT_ERROR_NOT_FOUND, "no RDMA device named 'mlx5_0' in ");
    assert_int_equal(a, XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(xrt_get_last_error_string(), "/class/infiniband"));
}

static void broken_links_rank_last(void **state)
{
    char rel[400];
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", "");
    nic_at("mlx5_9", "pci0000:80/0000:80:01.0/0000:e9:00.0", "");
    /* a device link to nothing, a loop, one that leaves the tree, one into no PCI device */
    mkdirs("class/infiniband/mlx5_0");
    link_at("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:e0:00.0",
            "class/infiniband/mlx5_0/device");
    mkdirs("class/infiniband/mlx5_1");
    link_at("loop", "class/infiniband/mlx5_1/device");
    snprintf(rel, sizeof rel, "%s/class/infiniband/mlx5_1/device", root);
    link_at(rel, "class/infiniband/mlx5_1/loop");
    mkdirs("class/infiniband/mlx5_2");
    link_at("/tmp", "class/infiniband/mlx5_2/device");
    mkdirs("devices/virtual/infiniband/rxe0");
    mkdirs("class/infiniband/rxe0");
    link_at("../../../devices/virtual/infiniband/rxe0", "class/infiniband/rxe0/device");
    mkdirs("class/infiniband/mlx5_3"); /* no device link at all */
    nic_log[0] = 0;
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "xrt_rdma_device_affinity: mlx5_0: unknown: "));
    assert_non_null(strstr(nic_log, "/class/infiniband/mlx5_0/device: No such file or directory (ENOENT=2)\n"));
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "/class/infiniband/mlx5_1/device: Too many levels of symbolic links"));
    assert_int_equal(affinity("mlx5_2"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "/class/infiniband/mlx5_2/device leads out of "));
    assert_int_equal(affinity("rxe0"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "/class/infiniband/rxe0/device is no PCI device (at 'virtual')\n"));
    assert_int_equal(affinity("mlx5_3"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "/class/infiniband/mlx5_3/device: No such file or directory"));
    assert_int_equal(affinity("mlx5_9"), XRT_RDMA_AFFINITY_NODE);
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_0 mlx5_1 mlx5_2 mlx5_3 rxe0 mlx5_9", "mlx5_9");
    assert_non_null(strstr(nic_log, "first: mlx5_9 NODE, mlx5_0 ?, mlx5_1 ?, mlx5_2 ?, mlx5_3 ?, rxe0 ?\n"));
}

/* The device itself out of sight: every RDMA device unknown, libibverbs' order kept. */
static void device_without_a_place_keeps_the_order(void **state)
{
    (void)state;
    NEEDS_GPU();
    nic_at("mlx5_1", "pci0000:00/0000:00:01.0/0000:e1:00.0", "");
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "");
    nic_log[0] = 0;
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "/bus/pci/devices/"));
    assert_non_null(strstr(nic_log, ": No such file or directory (ENOENT=2)\n"));
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_1 mlx5_0", "mlx5_1");
    assert_non_null(strstr(nic_log, "libibverbs' order\n"));
}

/* A root that is not there, or a file: no crash, unknown, said why. */
static void root_that_is_not_there(void **state)
{
    char bad[300], gone[300];
    (void)state;
    NEEDS_GPU();
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "");
    gpu_at("pci0000:00/0000:00:01.0", "");
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_PHB);
    snprintf(bad, sizeof bad, "%s/devices", root);
    snprintf(gone, sizeof gone, "%s/gone", root);
    assert_int_equal(rename(bad, gone), 0); /* devices/ is gone, class/ stays */
    nic_log[0] = 0;
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "/devices: No such file or directory (ENOENT=2)\n"));
    xrt__sysfs_root = "/nonexistent/xrt-sysfs";
    FAILS(xrt_rdma_device_affinity(0, "mlx5_0", &(xrt_rdma_affinity){0}), XRT_ERROR_NOT_FOUND,
          "no RDMA device named 'mlx5_0' in /nonexistent/xrt-sysfs/class/infiniband");
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_1 mlx5_0", "mlx5_1");
    assert_non_null(strstr(nic_log, "xrt_rdma_open: /nonexistent/xrt-sysfs/devices: No such file or directory "
                                    "(ENOENT=2); libibverbs' order\n"));
    xrt__sysfs_root = root;
}

/* XRT_RDMA_DEVICE names the device: no choosing. */
static void env_overrides_the_choice(void **state)
{
    (void)state;
    NEEDS_GPU();
    gpu_at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", "");
    nic_at("mlx5_1", "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:e1:00.0", "");
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "");
    setenv("XRT_RDMA_DEVICE", "mlx5_0", 1);
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_1 mlx5_0", "mlx5_0");
    assert_null(strstr(nic_log, "nearest"));
    unsetenv("XRT_RDMA_DEVICE");
    OPENS_FIRST("mlx5_0 mlx5_1", "mlx5_1");
}

/* >> the CPU device has no PCI address: unknown, libibverbs' order */
static void cpu_device_keeps_the_order(void **state)
{
    (void)state;
    OK(xrt_set_backend("cpu"));
    nic_at("mlx5_1", "pci0000:00/0000:00:01.0/0000:e1:00.0", "");
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "");
    nic_log[0] = 0;
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_UNKNOWN);
    assert_non_null(strstr(nic_log, "xrt_rdma_device_affinity: mlx5_0: unknown: cpu device 0 has no PCI address and no NUMA node\n"));
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_1 mlx5_0", "mlx5_1");
    assert_non_null(strstr(nic_log, "xrt_rdma_open: cpu device 0 has no PCI address and no NUMA node; libibverbs' order\n"));
}

/* >> a CPU device on a NUMA node (XRT_CPU_DEVICES=numa, started on the
   tree's nodes 0 and 1): NICs on its node first (NODE), the others after
   (SYS), unknown ones last; a device without a node keeps libibverbs' order. */
static void cpu_devices_on(const char *value)
{
    xrt_shutdown();
    setenv("XRT_CPU_DEVICES", value, 1);
    OK(xrt_set_backend("cpu"));
    nic_log_capture();
}

static void cpu_devices_reset(void)
{
    xrt_shutdown();
    unsetenv("XRT_CPU_DEVICES");
    OK(xrt_set_backend("cpu"));
}

static void cpu_device_on_a_node(void **state)
{
    (void)state;
    mkdirs("devices/system/node/node0");
    mkdirs("devices/system/node/node1");
    put("devices/system/node/online", "0-1\n");
    put("devices/system/node/node0/cpulist", "0\n");
    put("devices/system/node/node1/cpulist", "0\n");
    nic_at("mlx5_0", "pci0000:00/0000:00:01.0/0000:e0:00.0", "0\n");
    nic_at("mlx5_1", "pci0000:80/0000:80:01.0/0000:e1:00.0", "1\n");
    nic_at("mlx5_2", "pci0000:c0/0000:c0:01.0/0000:e2:00.0", "1\n");
    nic_at("mlx5_3", "pci0000:40/0000:40:01.0/0000:e3:00.0", "");
    cpu_devices_on("numa");
    OK(xrt_set_device(1));
    assert_int_equal(affinity("mlx5_1"), XRT_RDMA_AFFINITY_SYS); /* device 0's view */
    assert_int_equal(affinity("mlx5_0"), XRT_RDMA_AFFINITY_NODE);
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_3 mlx5_0 mlx5_2 mlx5_1", "mlx5_1");
    assert_non_null(strstr(nic_log, "xrt_rdma_open: nearest to device 1 (NUMA node 1, no PCI address) first: "
                                    "mlx5_1 NODE, mlx5_2 NODE, mlx5_0 SYS, mlx5_3 SYS\n"));
    OK(xrt_set_device(0));
    OPENS_FIRST("mlx5_3 mlx5_2 mlx5_1 mlx5_0", "mlx5_0");
    cpu_devices_on("2");
    OK(xrt_set_device(1));
    nic_log[0] = 0;
    OPENS_FIRST("mlx5_3 mlx5_0 mlx5_2 mlx5_1", "mlx5_3");
    assert_non_null(strstr(nic_log, "xrt_rdma_open: cpu device 1 has no PCI address and no NUMA node; libibverbs' order\n"));
    cpu_devices_reset();
}

/* >> a GPU's numa_node: its PCI function's, from sysfs */
static void gpu_numa_node(void **state)
{
    xrt_device_prop p;
    char rel[128];
    (void)state;
    NEEDS_GPU();
    OK(xrt_get_device_properties(&p, 0));
    assert_int_equal(p.numa_node, -1); /* not in the tree */
    gpu_at("pci0000:80/0000:80:01.0", "1\n");
    OK(xrt_get_device_properties(&p, 0));
    assert_int_equal(p.numa_node, 1);
    snprintf(rel, sizeof rel, "devices/pci0000:80/0000:80:01.0/%s/numa_node", gpu);
    put(rel, "-1\n");
    OK(xrt_get_device_properties(&p, 0));
    assert_int_equal(p.numa_node, -1);
    put(rel, "1x\n");
    OK(xrt_get_device_properties(&p, 0));
    assert_int_equal(p.numa_node, -1);
}

/* >> arguments */
static void bad_arguments(void **state)
{
    xrt_rdma_affinity a = XRT_RDMA_AFFINITY_PIX;
    (void)state;
    OK(xrt_set_backend("cpu"));
    nic_at("mlx5_0", "pci0000:00/0000:00:02.0/0000:e0:00.0", "");
    FAILS(xrt_rdma_device_affinity(0, "mlx5_0", NULL), XRT_ERROR_INVALID_VALUE, "affinity is NULL");
    FAILS(xrt_rdma_device_affinity(0, NULL, &a), XRT_ERROR_INVALID_VALUE, "rdma_device is NULL");
    assert_int_equal(a, XRT_RDMA_AFFINITY_UNKNOWN);
    FAILS(xrt_rdma_device_affinity(0, "", &a), XRT_ERROR_INVALID_VALUE, "'' is no RDMA device name");
    FAILS(xrt_rdma_device_affinity(0, "..", &a), XRT_ERROR_INVALID_VALUE, "'..' is no RDMA device name");
    FAILS(xrt_rdma_device_affinity(0, "../../etc", &a), XRT_ERROR_INVALID_VALUE, "'../../etc' is no RDMA device name");
    FAILS(xrt_rdma_device_affinity(0, "mlx5_7", &a), XRT_ERROR_NOT_FOUND, "no RDMA device named 'mlx5_7'");
    FAILS(xrt_rdma_device_affinity(7, "mlx5_0", &a), XRT_ERROR_INVALID_DEVICE, "xrt_get_device_properties");
    FAILS(xrt_rdma_device_affinity(-1, "mlx5_0", &a), XRT_ERROR_INVALID_DEVICE, "xrt_get_device_properties");
    assert_string_equal(xrt_rdma_affinity_name(XRT_RDMA_AFFINITY_PIX), "PIX");
    assert_string_equal(xrt_rdma_affinity_name(XRT_RDMA_AFFINITY_SYS), "SYS");
    assert_string_equal(xrt_rdma_affinity_name(XRT_RDMA_AFFINITY_UNKNOWN), "?");
    assert_string_equal(xrt_rdma_affinity_name((xrt_rdma_affinity)42), "?");
    assert_string_equal(xrt_rdma_affinity_name((xrt_rdma_affinity)-1), "?");
}

#define TREE_TEST(f) cmocka_unit_test_setup_teardown(f, tree_setup, tree_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TREE_TEST(same_switch_is_pix),
        TREE_TEST(functions_of_one_device_are_pix),
        TREE_TEST(two_switches_under_one_root_port_are_pxb),
        TREE_TEST(two_root_complexes_on_one_node_are_node),
        TREE_TEST(two_numa_nodes_are_sys),
        TREE_TEST(unknown_numa_node),
        TREE_TEST(garbage_numa_node_is_unknown),
        TREE_TEST(ties_go_to_the_lowest_name),
        TREE_TEST(no_nic_is_not_found),
        TREE_TEST(broken_links_rank_last),
        TREE_TEST(device_without_a_place_keeps_the_order),
        TREE_TEST(root_that_is_not_there),
        TREE_TEST(env_overrides_the_choice),
        TREE_TEST(cpu_device_keeps_the_order),
        TREE_TEST(cpu_device_on_a_node),
        TREE_TEST(gpu_numa_node),
        TREE_TEST(bad_arguments),
    };
    int failed;
    unsetenv("XRT_RDMA_DEVICE");
    failed = xrt_test_run_group("the nearest RDMA device", tests, NULL);
    xrt_set_log_callback(NULL, NULL);
    xrt_shutdown();
    return failed;
}
