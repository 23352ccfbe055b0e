#!/bin/sh
# SPDX-License-Identifier: MIT
# Compile checks of the GPU backends (xrt_cuda.h, xrt_hip.h, xrt_gpu.h), run by
# tests/compile/matrix.sh when this file exists, or alone: sh tests/compile/gpu.sh
#
#   - an XRT_IMPL program per backend combination (cuda, hip, cpu+cuda, cpu+hip,
#     cpu+cuda+hip), compiled and linked by gcc and clang (C11) and g++ and
#     clang++ (C++17), under -Wall -Wextra -Werror -pedantic;
#   - the same with XRT_NO_RUNTIME_LINKING, linked to -lcudart -lamdhip64: the
#     type-checked symbol table, and a library that lacks an optional symbol;
#   - signature drift: a copy of the headers with one prototype of a symbol
#     list changed must NOT compile, in both linking modes (the runtime row of
#     cudaMalloc / hipMalloc; the CUDA driver's cuInit);
#   - HIP against ROCm 6 shaped headers: the installed HIP 5 headers with
#     what ROCm 6 changed for xrt (HIP_VERSION_MAJOR 6, hipPointerAttribute_t's
#     `type`, hipDeviceProp_tR0600 and the hipGetDeviceProperties macro,
#     the graph node types numbered from 0 without hipGraphNodeTypeMemcpy1D,
#     ROCm 6's hipIpcMemLazyEnablePeerAccess and device flags), compiled
#     in both linking modes (xrt_hip.h checks its own layouts and node
#     types against them);
#   - a .cu file that includes xrt.h (not the implementation), built by nvcc and
#     linked with a C XRT_IMPL unit.
#
# Nothing is run. The compilers of a step run in parallel. Each check appends "ok|<name>|<log>" or "fail|<name>|<log>"
# to build/matrix.results; a check whose toolchain is missing prints
# "skipped: ..." and adds no line.
set -u
B=${B:-build}
LOG=$B/test-logs
SRC=$B/gpu-compile
RESULTS=$B/matrix.results
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
HIP_INCLUDE=${HIP_INCLUDE:-/usr/include}
WARN="-Wall -Wextra -Werror -pedantic"
mkdir -p "$LOG" "$SRC"
touch "$RESULTS"

# check NAME CMD...: one result line.
check() {
    name=$1
    shift
    log=$LOG/gpu_$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log
    if "$@" > "$log" 2>&1; then
        echo "ok|$name|$log" >> "$RESULTS"
        echo "  ok    $name"
    else
        echo "fail|$name|$log" >> "$RESULTS"
        echo "  FAIL  $name"
    fi
}

have_cuda=0
have_hip=0
[ -f "$CUDA_HOME/include/cuda_runtime_api.h" ] && have_cuda=1
[ -f "$HIP_INCLUDE/hip/hip_runtime_api.h" ] && have_hip=1
[ $have_cuda = 1 ] || echo "skipped: CUDA checks: no $CUDA_HOME/include/cuda_runtime_api.h"
[ $have_hip = 1 ] || echo "skipped: HIP checks: no $HIP_INCLUDE/hip/hip_runtime_api.h"

CUDA_FLAGS="-DXRT_ENABLE_CUDA -isystem $CUDA_HOME/include"
HIP_FLAGS="-DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__"
# -isystem /usr/include would reorder the system directories and break C++
[ "$HIP_INCLUDE" = /usr/include ] || HIP_FLAGS="$HIP_FLAGS -isystem $HIP_INCLUDE"

# An XRT_IMPL program that touches every backend operation through xrt.h.
cat > "$SRC/impl_main.c" <<'EOF'
#define XRT_IMPL
#include "xrt.h"

#include <stdio.h>

int main(void)
{
    void *d = NULL;
    xrt_stream s = NULL;
    xrt_device_prop p;
    if (xrt_init() != XRT_SUCCESS || xrt_malloc(&d, 64) != XRT_SUCCESS) {
        puts(xrt_get_last_error_string());
        return 1;
    }
    xrt_stream_create(&s);
    xrt_memset_async(d, 0, 64, s);
    xrt_stream_synchronize(s);
    xrt_get_device_properties(&p, 0);
    xrt_stream_destroy(s);
    xrt_free(d);
    xrt_shutdown();
    return 0;
}
EOF

# Names of the usable compilers, with their language flags.
compilers() {
    command -v gcc > /dev/null && echo "gcc:-std=c11"
    command -v clang > /dev/null && echo "clang:-std=c11"
    command -v g++ > /dev/null && echo "g++:-std=c++17 -x c++"
    command -v clang++ > /dev/null && echo "clang++:-std=c++17 -x c++"
}
for c in gcc clang g++ clang++; do command -v $c > /dev/null || echo "skipped: GPU checks with $c: not installed"; done

# impl COMPILER LANGUAGE OUT FLAGS... : compile and link the IMPL program
# (libraries in $LIBS, after the source).
LIBS=""
impl() {
    cc=$1 lang=$2 out=$3
    shift 3
    # shellcheck disable=SC2086
    $cc $lang $WARN -I. "$@" -O1 -o "$out" "$SRC/impl_main.c" -x none $LIBS -lpthread
}

# >> run-time loading, every combination that has a GPU backend
for combo in cuda hip cpu+cuda cpu+hip cpu+cuda+hip; do
    flags=""
    case $combo in *cpu*) flags="-DXRT_ENABLE_CPU" ;; esac
    case $combo in *cuda*) [ $have_cuda = 1 ] || continue; flags="$flags $CUDA_FLAGS" ;; esac
    case $combo in *hip*) [ $have_hip = 1 ] || continue; flags="$flags $HIP_FLAGS" ;; esac
    compilers | {
        while IFS=: read -r cc lang; do
            # shellcheck disable=SC2086
            check "gpu: $combo impl ($cc)" impl "$cc" "$lang" "$SRC/impl_$combo.$cc" $flags &
        done
        wait
    }
done

# >> XRT_NO_RUNTIME_LINKING: the table is assigned from the linked runtimes
# (a signature drift fails to compile); hipLaunchHostFunc, absent from HIP 5's
# library, is a weak reference. The binary must need both runtimes.
direct() {
    cc=$1 lang=$2 out=$3
    # shellcheck disable=SC2086
    LIBS="-L$CUDA_HOME/lib64 -lcudart -lamdhip64" impl "$cc" "$lang" "$out" -DXRT_NO_RUNTIME_LINKING \
        -DXRT_ENABLE_CPU $CUDA_FLAGS $HIP_FLAGS &&
        readelf -d "$out" | grep -q 'NEEDED.*libcudart' &&
        readelf -d "$out" | grep -q 'NEEDED.*libamdhip64'
}
if [ $have_cuda = 1 ] && [ $have_hip = 1 ]; then
    if [ ! -e "$CUDA_HOME/lib64/libcudart.so" ]; then
        echo "skipped: direct linking: no $CUDA_HOME/lib64/libcudart.so"
    elif [ "$(gcc -print-file-name=libamdhip64.so)" = libamdhip64.so ]; then
        echo "skipped: direct linking: no libamdhip64.so (libamdhip64-dev)"
    else
        compilers | {
            while IFS=: read -r cc lang; do
                check "gpu: direct link cpu+cuda+hip ($cc)" direct "$cc" "$lang" "$SRC/direct.$cc" &
            done
            wait
        }
    fi
fi

# >> signature drift: change one prototype of a symbol list in a copy of the
# headers; the build must fail and name the symbol.
drift() {
    dir=$1 file=$2 from=$3 to=$4 sym=$5
    shift 5
    rm -rf "$dir" && mkdir -p "$dir" && cp xrt*.h "$dir/" || return 1
    sed -i "s/$from/$to/" "$dir/$file" && ! cmp -s "$dir/$file" "$file" || { echo "pattern not found: $from"; return 1; }
    # shellcheck disable=SC2086
    if gcc -std=c11 $WARN -I"$dir" "$@" -c -o "$dir/impl.o" "$SRC/impl_main.c" > "$dir/out.log" 2>&1; then
        echo "compiled despite the changed prototype of $sym"
        return 1
    fi
    cat "$dir/out.log"
    grep -q "$sym" "$dir/out.log"
}
# The runtime's rows (xrt_gpu.h) are checked against both vendors' headers in
# every build; the CUDA driver's list (xrt_cuda.h) too.
malloc_row='X(Malloc, cudaMalloc, 0, hipMalloc, 0, XRT__GPU_T(error), (void \*\*ptr, size_t size))'
malloc_drift='X(Malloc, cudaMalloc, 0, hipMalloc, 0, XRT__GPU_T(error), (void **ptr, int size))'
if [ $have_cuda = 1 ]; then
    check "gpu: a drifted cudaMalloc prototype fails to compile (run-time loading)" drift "$SRC/drift-cudart" xrt_gpu.h \
        "$malloc_row" "$malloc_drift" cudaMalloc $CUDA_FLAGS
    check "gpu: a drifted cudaMalloc prototype fails to compile (direct linking)" drift "$SRC/drift-cudart-direct" \
        xrt_gpu.h "$malloc_row" "$malloc_drift" cudaMalloc -DXRT_NO_RUNTIME_LINKING $CUDA_FLAGS
    check "gpu: a drifted cuInit prototype fails to compile (run-time loading)" drift "$SRC/drift-cuda" xrt_cuda.h \
        'X(Init, cuInit, 0, CUresult, (unsigned int flags))' 'X(Init, cuInit, 0, CUresult, (int flags))' cuInit \
        $CUDA_FLAGS
fi
if [ $have_hip = 1 ]; then
    check "gpu: a drifted hipMalloc prototype fails to compile (run-time loading)" drift "$SRC/drift-hip" xrt_gpu.h \
        "$malloc_row" "$malloc_drift" hipMalloc $HIP_FLAGS
    check "gpu: a drifted hipMalloc prototype fails to compile (direct linking)" drift "$SRC/drift-hip-direct" xrt_gpu.h \
        "$malloc_row" "$malloc_drift" hipMalloc -DXRT_NO_RUNTIME_LINKING $HIP_FLAGS
fi

# >> ROCm 6 shaped headers, made from the installed HIP 5 ones. The device
# struct is ROCm 6's hipDeviceProp_tR0600, field by field as its documentation
# lists them (xrt_hip.h declares only what it reads, and asserts that its
# offsets agree with this one); the graph node types, the IPC and device
# flags are rocm-6.0.0's values.
rocm6_headers() {
    dir=$1
    rm -rf "$dir" && mkdir -p "$dir" && cp -r "$HIP_INCLUDE/hip" "$dir/" || return 1
    sed -i 's/^#define HIP_VERSION_MAJOR .*/#define HIP_VERSION_MAJOR 6/; s/^#define HIP_VERSION_MINOR .*/#define HIP_VERSION_MINOR 0/' \
        "$dir/hip/hip_version.h"
    sed -i 's/^    enum hipMemoryType memoryType;/    enum hipMemoryType type;/' "$dir/hip/hip_runtime_api.h"
    grep -q '^    enum hipMemoryType type;' "$dir/hip/hip_runtime_api.h" || return 1
    # ROCm 5.3 on: node types numbered from 0 as CUDA's, no hipGraphNodeTypeMemcpy1D;
    # ROCm 6: the IPC and device flags' values (rocm-6.0.0's hip_runtime_api.h)
    cat > "$SRC/rocm6_node_types.h" <<'TYPES'
typedef enum hipGraphNodeType {
  hipGraphNodeTypeKernel = 0,
  hipGraphNodeTypeMemcpy = 1,
  hipGraphNodeTypeMemset = 2,
  hipGraphNodeTypeHost = 3,
  hipGraphNodeTypeGraph = 4,
  hipGraphNodeTypeEmpty = 5,
  hipGraphNodeTypeWaitEvent = 6,
  hipGraphNodeTypeEventRecord = 7,
  hipGraphNodeTypeExtSemaphoreSignal = 8,
  hipGraphNodeTypeExtSemaphoreWait = 9,
  hipGraphNodeTypeMemAlloc = 10,
  hipGraphNodeTypeMemFree = 11,
  hipGraphNodeTypeMemcpyFromSymbol = 12,
  hipGraphNodeTypeMemcpyToSymbol = 13,
  hipGraphNodeTypeCount
} hipGraphNodeType;
TYPES
    awk -v f="$SRC/rocm6_node_types.h" '/^typedef enum hipGraphNodeType \{/ {skip = 1; while ((getline l < f) > 0) print l}
        !skip {print} skip && /^\} hipGraphNodeType;/ {skip = 0}' "$dir/hip/hip_runtime_api.h" > "$dir/hip/api.tmp" &&
        mv "$dir/hip/api.tmp" "$dir/hip/hip_runtime_api.h"
    ! grep -q hipGraphNodeTypeMemcpy1D "$dir/hip/hip_runtime_api.h" && grep -q 'hipGraphNodeTypeMemcpyToSymbol = 13' \
        "$dir/hip/hip_runtime_api.h" || return 1
    sed -i 's/^#define hipIpcMemLazyEnablePeerAccess .*/#define hipIpcMemLazyEnablePeerAccess 0x01/;
        s/^#define hipDeviceLmemResizeToMax .*/#define hipDeviceLmemResizeToMax 0x10/;
        s/^#define hipExtHostRegisterCoarseGrained .*/#define hipHostRegisterReadOnly 0x08\n&/' "$dir/hip/hip_runtime_api.h"
    grep -q '^#define hipIpcMemLazyEnablePeerAccess 0x01' "$dir/hip/hip_runtime_api.h" &&
        grep -q '^#define hipDeviceLmemResizeToMax 0x10' "$dir/hip/hip_runtime_api.h" &&
        grep -q '^#define hipHostRegisterReadOnly 0x08' "$dir/hip/hip_runtime_api.h" || return 1
    cat > "$SRC/rocm6_prop.h" <<'PROP'
typedef struct hipDeviceProp_tR0600 {
    char name[256];
    hipUUID uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    size_t memPitch;
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
    size_t totalConstMem;
    int major, minor;
    size_t textureAlignment, texturePitchAlignment;
    int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode;
    int maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2], maxTexture2DMipmap[2];
    int maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap;
    int maxTexture1DLayered[2], maxTexture2DLayered[3], maxTextureCubemapLayered[2];
    int maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3];
    int maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount;
    int unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor, streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported;
    int canUseHostPointerForRegisteredMem, cooperativeLaunch, cooperativeMultiDeviceLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported, sparseHipArraySupported, hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingHipArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
    int reserved[63], hipReserved[32];
    char gcnArchName[256];
    size_t maxSharedMemoryPerMultiProcessor;
    int clockInstructionRate;
    hipDeviceArch_t arch;
    unsigned int *hdpMemFlushCntl, *hdpRegFlushCntl;
    int cooperativeMultiDeviceUnmatchedFunc, cooperativeMultiDeviceUnmatchedGridDim;
    int cooperativeMultiDeviceUnmatchedBlockDim, cooperativeMultiDeviceUnmatchedSharedMem, isLargeBar, asicRevision;
} hipDeviceProp_tR0600;
#ifdef __cplusplus
extern "C" {
#endif
hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int deviceId);
#ifdef __cplusplus
}
#endif
#define hipDeviceProp_t hipDeviceProp_tR0600
#define hipGetDeviceProperties hipGetDevicePropertiesR0600
PROP
    # after the last include of the header's prologue, where hipUUID, hipDeviceArch_t and hipError_t exist
    awk -v f="$SRC/rocm6_prop.h" '{print} /^#include <hip\/surface_types.h>/ {while ((getline l < f) > 0) print l}' \
        "$dir/hip/hip_runtime_api.h" > "$dir/hip/api.tmp" && mv "$dir/hip/api.tmp" "$dir/hip/hip_runtime_api.h"
    grep -q hipGetDevicePropertiesR0600 "$dir/hip/hip_runtime_api.h"
}
rocm6() {
    cc=$1 lang=$2 mode=$3
    # shellcheck disable=SC2086
    $cc $lang $WARN -I. -isystem "$SRC/rocm6" -DXRT_ENABLE_CPU -DXRT_ENABLE_HIP -D__HIP_PLATFORM_AMD__ $mode -O1 \
        -c -o "$SRC/rocm6-$cc.o" "$SRC/impl_main.c"
}
if [ $have_hip = 1 ]; then
    if rocm6_headers "$SRC/rocm6" > "$LOG/gpu_rocm6_headers.log" 2>&1; then
        compilers | {
            while IFS=: read -r cc lang; do
                check "gpu: hip on ROCm 6 headers ($cc)" rocm6 "$cc" "$lang" "" &
                check "gpu: hip on ROCm 6 headers, direct linking ($cc)" rocm6 "$cc" "$lang" -DXRT_NO_RUNTIME_LINKING &
                wait
            done
        }
    else
        echo "fail|gpu: ROCm 6 shaped headers|$LOG/gpu_rocm6_headers.log" >> "$RESULTS"
        echo "  FAIL  gpu: ROCm 6 shaped headers"
    fi
fi

# >> nvcc: a .cu file sees only the vendor-free part of xrt.h; a C unit is the
# implementation. -cudart shared: one CUDA runtime for the kernel launch and xrt.
cat > "$SRC/user.cu" <<'EOF'
#include "xrt.h"

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

int main()
{
    float *x = nullptr;
    xrt_stream s = nullptr;
    void *native = nullptr;
    if (xrt_set_backend("cuda") != XRT_SUCCESS) return 1;
    xrt_malloc(reinterpret_cast<void **>(&x), 256 * sizeof(float));
    xrt_stream_create(&s);
    xrt_stream_get_native(s, &native);
    scale<<<1, 256, 0, static_cast<cudaStream_t>(native)>>>(x, 2.0f, 256);
    xrt_stream_synchronize(s);
    xrt_stream_destroy(s);
    xrt_free(x);
    return 0;
}
EOF
cat > "$SRC/user_impl.c" <<'EOF'
#define XRT_IMPL
#include "xrt.h"
EOF
nvcc_build() {
    # shellcheck disable=SC2086
    gcc -std=c11 $WARN -I. -DXRT_ENABLE_CPU $CUDA_FLAGS -O1 -c -o "$SRC/user_impl.o" "$SRC/user_impl.c" &&
        "$NVCC" -std=c++17 -I. -Xcompiler -Wall,-Wextra,-Werror -cudart shared -o "$SRC/user_cu" \
            "$SRC/user.cu" "$SRC/user_impl.o" -lpthread
}
if [ ! -x "$NVCC" ]; then
    echo "skipped: nvcc check: no $NVCC"
elif [ $have_cuda = 0 ]; then
    echo "skipped: nvcc check: no CUDA headers"
else
    check "gpu: nvcc .cu including xrt.h + C impl unit" nvcc_build
fi
