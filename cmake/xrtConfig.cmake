# SPDX-License-Identifier: MIT
# CMake package of xrt, installed by `make install` as
# <prefix>/lib/cmake/xrt/xrtConfig.cmake.
#
#   find_package(xrt 0.2 REQUIRED)                        # the CPU backend (always built in)
#   find_package(xrt 0.2 REQUIRED COMPONENTS cuda rdma)   # and the backends picked
#   target_link_libraries(app PRIVATE xrt::xrt)
#
# xrt::xrt is an interface target: the include directory (<prefix>/include/xrt,
# so that `#include "xrt.h"` works), Threads::Threads and the dynamic loader
# library. Each component adds, to xrt::xrt, the XRT_ENABLE_* define of its
# backend and what its implementation needs to compile (the enable defines
# matter only in the unit that defines XRT_IMPL):
#   cpu   XRT_ENABLE_CPU (accepted: the CPU backend is always built in, unless
#         the program defines XRT_DISABLE_CPU)
#   cuda  XRT_ENABLE_CUDA and the CUDA Toolkit's include directory
#         (find_package(CUDAToolkit)); libcudart is loaded at run time
#   hip   XRT_ENABLE_HIP, __HIP_PLATFORM_AMD__ and HIP's include directory
#         (hip/hip_runtime_api.h under /opt/rocm/include or a system path)
#   rdma  XRT_ENABLE_RDMA and infiniband/verbs.h's include directory;
#         libibverbs is loaded at run time
# A component whose headers are not found sets xrt_<name>_FOUND to FALSE (and
# fails find_package when it was REQUIRED). Each found one also has its own
# target, xrt::<name>, for a program that wants to say which it uses.
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_xrt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(xrt_INCLUDE_DIR "${_xrt_prefix}/include/xrt")

if(NOT TARGET xrt::xrt)
  add_library(xrt::xrt INTERFACE IMPORTED)
  set_target_properties(xrt::xrt PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${xrt_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS}")
endif()

# _xrt_component(NAME DEFINES INCLUDE_DIRS): xrt::NAME, added to xrt::xrt.
function(_xrt_component name defines includes)
  if(NOT TARGET xrt::${name})
    add_library(xrt::${name} INTERFACE IMPORTED)
    set_target_properties(xrt::${name} PROPERTIES
      INTERFACE_COMPILE_DEFINITIONS "${defines}"
      INTERFACE_INCLUDE_DIRECTORIES "${includes}")
    set_property(TARGET xrt::xrt APPEND PROPERTY INTERFACE_LINK_LIBRARIES xrt::${name})
  endif()
  set(xrt_${name}_FOUND TRUE PARENT_SCOPE)
endfunction()

foreach(_xrt_c IN LISTS xrt_FIND_COMPONENTS)
  set(xrt_${_xrt_c}_FOUND FALSE)
  if(_xrt_c STREQUAL "cpu")
    _xrt_component(cpu "XRT_ENABLE_CPU" "")
  elseif(_xrt_c STREQUAL "cuda")
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND)
      _xrt_component(cuda "XRT_ENABLE_CUDA" "${CUDAToolkit_INCLUDE_DIRS}")
    else()
      set(xrt_cuda_NOT_FOUND_MESSAGE "cuda: the CUDA Toolkit was not found (set CUDAToolkit_ROOT)")
    endif()
  elseif(_xrt_c STREQUAL "hip")
    find_path(XRT_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS /opt/rocm/include)
    if(XRT_HIP_INCLUDE_DIR)
      _xrt_component(hip "XRT_ENABLE_HIP;__HIP_PLATFORM_AMD__" "${XRT_HIP_INCLUDE_DIR}")
    else()
      set(xrt_hip_NOT_FOUND_MESSAGE "hip: hip/hip_runtime_api.h not found (install libamdhip64-dev or ROCm)")
    endif()
  elseif(_xrt_c STREQUAL "rdma")
    find_path(XRT_VERBS_INCLUDE_DIR infiniband/verbs.h)
    if(XRT_VERBS_INCLUDE_DIR)
      _xrt_component(rdma "XRT_ENABLE_RDMA" "${XRT_VERBS_INCLUDE_DIR}")
    else()
      set(xrt_rdma_NOT_FOUND_MESSAGE "rdma: infiniband/verbs.h not found (install libibverbs-dev)")
    endif()
  else()
    set(xrt_${_xrt_c}_NOT_FOUND_MESSAGE "${_xrt_c}: no such component (cpu, cuda, hip, rdma)")
  endif()
endforeach()

# A required component that was not found fails find_package with its reason.
foreach(_xrt_c IN LISTS xrt_FIND_COMPONENTS)
  if(xrt_FIND_REQUIRED_${_xrt_c} AND NOT xrt_${_xrt_c}_FOUND)
    set(xrt_FOUND FALSE)
    string(APPEND xrt_NOT_FOUND_MESSAGE "${xrt_${_xrt_c}_NOT_FOUND_MESSAGE}. ")
  endif()
endforeach()
unset(_xrt_prefix)
unset(_xrt_c)
