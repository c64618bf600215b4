# Grader targets for one lab.
#
#   banklab_add_lab(<NN> <name>)        e.g. banklab_add_lab(05 swizzle)
#
# Builds grader/labNN_test.cu against ${BANKLAB_GRADE}/NN_name/kernel.cu (the lab source is
# #included through the macro BANKLAB_LAB_SOURCE) as the executable grade_labNN. The executable
# is not part of `all`: the test `labNN.build` builds it inside CTest, so a compile error in one
# lab is that lab's failure (with the compiler's message) and never stops another lab's grading.
#
# Tests are found in the source at configure time (gtest_add_tests), one process per test.
# Suites whose name ends in `OnGpu` get the label `gpu`, the others `cpu`; all get `labNN`.
#
# With BANKLAB_SELFTEST=ON it also proves that the grader can fail:
#   labNN.stub_fails      the stub in labs/ must fail the CPU tier with a message naming banks;
#   labNN.bad.<file>      every grader/bad/NN_name/<file>.cu must fail the test named in its
#                         `// EXPECT_FAIL: Suite.Test` line (skipped when that test skips, e.g.
#                         a GPU test on a machine without a GPU). A line `// EXPECT_TOOL: racecheck`
#                         (or memcheck) requires compute-sanitizer to flag that test instead.

set(BANKLAB_GPU_TEST_TIMEOUT 120 CACHE STRING "Seconds before a GPU test is killed (hangs fail)")
set(_BANKLAB_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# Optional GPU tools: with them, each lab also runs its GPU correctness tests (names containing
# "Correct") under compute-sanitizer (labels sanitize, gpu) and under Nsight Compute (labels ncu,
# gpu), where ncu's shared-memory wavefront counts must equal the model's prediction.
find_program(BANKLAB_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR})
find_program(BANKLAB_NCU ncu HINTS ${CUDAToolkit_BIN_DIR})
find_package(Python3 COMPONENTS Interpreter)

function(_banklab_grader_exe target test_src lab_src)
  add_executable(${target} EXCLUDE_FROM_ALL ${test_src})
  target_link_libraries(${target} PRIVATE banklab::model banklab_grader GTest::gtest_main)
  target_compile_definitions(${target} PRIVATE BANKLAB_LAB_SOURCE="${lab_src}")
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()

function(banklab_add_lab num name)
  set(lab ${num}_${name})
  set(label lab${num})
  set(test_src ${CMAKE_CURRENT_SOURCE_DIR}/lab${num}_test.cu)
  set(lab_src ${PROJECT_SOURCE_DIR}/${BANKLAB_GRADE}/${lab}/kernel.cu)
  set(exe grade_lab${num})
  _banklab_grader_exe(${exe} ${test_src} ${lab_src})

  add_test(NAME ${label}.build
           COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${exe})
  set_tests_properties(${label}.build PROPERTIES LABELS "${label};cpu"
                       FIXTURES_SETUP ${label}_built RESOURCE_LOCK banklab_build)

  gtest_add_tests(TARGET ${exe} SOURCES ${test_src} TEST_PREFIX "${label}." TEST_LIST tests)
  foreach(t IN LISTS tests)
    if(t MATCHES "OnGpu\\.")
      set_tests_properties(${t} PROPERTIES LABELS "${label};gpu" TIMEOUT ${BANKLAB_GPU_TEST_TIMEOUT}
                           FIXTURES_REQUIRED ${label}_built RESOURCE_LOCK gpu
                           SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
    else()
      set_tests_properties(${t} PROPERTIES LABELS "${label};cpu" TIMEOUT 60
                           FIXTURES_REQUIRED ${label}_built)
    endif()
  endforeach()

  set(gpu_tool_cmd ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/grader/run_gpu_tool.py
      --exe $<TARGET_FILE:${exe}> --filter "Lab${num}OnGpu.*Correct*")
  set(gpu_tool_props FIXTURES_REQUIRED ${label}_built RESOURCE_LOCK gpu TIMEOUT 900
      SKIP_REGULAR_EXPRESSION "BANKLAB-SKIP:")
  if(BANKLAB_COMPUTE_SANITIZER AND Python3_FOUND)
    foreach(tool IN ITEMS memcheck racecheck)
      add_test(NAME ${label}.sanitize.${tool}
               COMMAND ${gpu_tool_cmd} --tool ${tool} --sanitizer ${BANKLAB_COMPUTE_SANITIZER})
      set_tests_properties(${label}.sanitize.${tool} PROPERTIES LABELS "${label};gpu;sanitize" ${gpu_tool_props})
    endforeach()
  endif()
  if(BANKLAB_NCU AND Python3_FOUND)
    add_test(NAME ${label}.ncu COMMAND ${gpu_tool_cmd} --tool ncu --ncu ${BANKLAB_NCU})
    set_tests_properties(${label}.ncu PROPERTIES LABELS "${label};gpu;ncu" ${gpu_tool_props})
  endif()

  if(NOT BANKLAB_SELFTEST)
    return()
  endif()

  # The stub in labs/ must fail the CPU tier, with a message a student can act on.
  set(stub_exe grade_lab${num}_stub)
  _banklab_grader_exe(${stub_exe} ${test_src} ${PROJECT_SOURCE_DIR}/labs/${lab}/kernel.cu)
  add_test(NAME ${label}.stub_fails
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DTARGET=${stub_exe}
                   -DEXE=$<TARGET_FILE:${stub_exe}> "-DFILTER=-*OnGpu.*" "-DEXPECT=*"
                   "-DMESSAGE_REGEX=bank [0-9]+|prediction"
                   -P ${_BANKLAB_CMAKE_DIR}/ExpectFailure.cmake)
  set_tests_properties(${label}.stub_fails PROPERTIES LABELS "selftest;${label}bad"
                       RESOURCE_LOCK banklab_build
                       SKIP_REGULAR_EXPRESSION "BANKLAB-SKIP:")

  # Every known-bad kernel must fail the test it names.
  file(GLOB bad_sources ${CMAKE_CURRENT_SOURCE_DIR}/bad/${lab}/*.cu)
  foreach(bad IN LISTS bad_sources)
    get_filename_component(bad_name ${bad} NAME_WE)
    file(STRINGS ${bad} expect_lines REGEX "EXPECT_FAIL: *[A-Za-z0-9_]+\\.[A-Za-z0-9_]+")
    if(NOT expect_lines)
      message(FATAL_ERROR "${bad}: needs a line '// EXPECT_FAIL: Suite.Test'")
    endif()
    list(GET expect_lines 0 expect_line)
    string(REGEX REPLACE ".*EXPECT_FAIL: *([A-Za-z0-9_]+\\.[A-Za-z0-9_]+).*" "\\1" expect "${expect_line}")
    # `// EXPECT_TOOL: racecheck` (or memcheck): the defect shows only under compute-sanitizer.
    file(STRINGS ${bad} tool_lines REGEX "EXPECT_TOOL: *(racecheck|memcheck)")
    set(tool_args)
    if(tool_lines)
      list(GET tool_lines 0 tool_line)
      string(REGEX REPLACE ".*EXPECT_TOOL: *(racecheck|memcheck).*" "\\1" tool "${tool_line}")
      set(tool_args -DTOOL=${tool} -DPYTHON=${Python3_EXECUTABLE}
          -DSCRIPT=${PROJECT_SOURCE_DIR}/grader/run_gpu_tool.py "-DSANITIZER=${BANKLAB_COMPUTE_SANITIZER}")
    endif()
    set(bad_exe grade_lab${num}_bad_${bad_name})
    _banklab_grader_exe(${bad_exe} ${test_src} ${bad})
    add_test(NAME ${label}.bad.${bad_name}
             COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DTARGET=${bad_exe}
                     -DEXE=$<TARGET_FILE:${bad_exe}> -DFILTER=${expect} -DEXPECT=${expect}
                     ${tool_args} -P ${_BANKLAB_CMAKE_DIR}/ExpectFailure.cmake)
    # LABELS gets a call of its own: a list inside a list of properties would be split apart.
    set_tests_properties(${label}.bad.${bad_name} PROPERTIES LABELS "selftest;${label}bad")
    set_tests_properties(${label}.bad.${bad_name} PROPERTIES RESOURCE_LOCK banklab_build
                         SKIP_REGULAR_EXPRESSION "BANKLAB-SKIP:" TIMEOUT 900)
  endforeach()
endfunction()
