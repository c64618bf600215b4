# The CUDA compiler and architectures. Include before project(), which fixes them.
# nvcc is often not on PATH: take the toolkit's usual place.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
# A GPU build for the machine at hand when nvidia-smi sees a GPU; otherwise sm_90 alone
# (the H200 the measurements come from). "native" fails without a GPU and "all-major" builds
# six targets, far too slow on two cores. Override with -DCMAKE_CUDA_ARCHITECTURES=86 etc.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(_banklab_arch 90)
  find_program(BANKLAB_NVIDIA_SMI nvidia-smi)
  if(BANKLAB_NVIDIA_SMI)
    execute_process(COMMAND ${BANKLAB_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _cap RESULT_VARIABLE _rc ERROR_QUIET TIMEOUT 20)
    if(_rc EQUAL 0 AND _cap MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_banklab_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_banklab_arch} CACHE STRING "CUDA architectures to build for")
  message(STATUS "banklab: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()

