# find_package(CUDAToolkit) for the project and for tools/calibrate built on its own.
# Debian 12's CMake 3.25.1 sets a property on CUDA::nvToolsExt without checking that it exists,
# and CUDA 13 has no nvToolsExt: the configure fails. CMake 3.25.2 checks first; before it, an
# empty stand-in target (nothing links it) lets FindCUDAToolkit finish.
if(CMAKE_VERSION VERSION_LESS 3.25.2 AND NOT TARGET CUDA::nvToolsExt)
  add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
endif()
find_package(CUDAToolkit REQUIRED)
