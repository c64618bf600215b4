# The judge's tests for one lab: docs/dev/GRADER.md.
#
#   banklab_add_lab(<NN> <folder>)      e.g. banklab_add_lab(05 05_swizzle)
#
# labNN.build (fixture setup): banklab-judge build compiles ${BANKLAB_GRADE}/<folder>/kernel.cu
#   apart from the judge (probe + device code, each with a time limit) and runs its probe. A
#   compile error is that lab's failure alone; every lab builds into its own work folder.
# labNN.<Suite>.<Test>: one judge process per test. It passes only on the judge's own verdict
#   record (0 passed, 1 failed, 77 skipped: CTest's SKIP_RETURN_CODE, GPU tests only).
# The lab's tests are Lab.tests() (python/banklab/lab/lab_tests.py, the one list: labs/NN_name/judge/test.cu's,
# those registered from labs/NN_name/judge/lab.toml's data, and solutions/NN_name/instructor_*_test.cu's),
# each with its tier and labels (gpu for suites ending in OnGpu, else cpu), as banklab_find_labs() read them.
#
#   banklab_lab_description(<NN> <folder> <OUT_VAR>)
#
# python/banklab/lab/gen.py checks labs/<folder>/judge/lab.toml (with solutions/<folder>/answers.toml
# when it exists) and writes into ${BANKLAB_GENERATED_DIR} grader/labNN_description.hpp (for the
# probe and the judge), labNN_questions_test.cpp (the generated tests' data, every test's tier and
# traced-ness) and labNN_gpu_test.cu (the generated GPU tests' data); their paths go to OUT_VAR,
# sources of banklab-judge. It runs at configure time too (a broken description fails
# the configure, naming the file and the key); CTest's list of the tests is Lab.tests(), not these
# files; a changed description configures again.

set(BANKLAB_GPU_TEST_TIMEOUT 180 CACHE STRING "Seconds before a GPU test is killed (hangs fail)")
option(BANKLAB_GRADED "Instructor's graded mode: a GPU test that cannot run fails instead of skipping" OFF)

find_program(BANKLAB_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR})
find_program(BANKLAB_NCU ncu HINTS ${CUDAToolkit_BIN_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/BanklabPython.cmake)   # BANKLAB_PY: how CMake runs the course's Python
set(BANKLAB_GENERATED_DIR ${CMAKE_BINARY_DIR}/grader/generated)

function(banklab_lab_description num folder out_var)
  if(NOT Python3_FOUND)
    message(FATAL_ERROR "Python 3.11 or newer is needed to read the labs' descriptions (python/banklab)")
  endif()
  banklab_judge_dir(${num} jdir)
  set(toml ${jdir}/lab.toml)
  set(probe ${jdir}/probe.cu)
  set(answers ${PROJECT_SOURCE_DIR}/solutions/${folder}/answers.toml)
  set(cmd ${BANKLAB_PY} -m banklab.lab.gen ${toml} ${BANKLAB_GENERATED_DIR} --probe ${probe} --answers ${answers})
  file(GLOB lablib ${PROJECT_SOURCE_DIR}/python/banklab/lab/*.py)
  # banklab.lab.expr's op table and shared-memory size (banklab.lab.model_table).
  set(model ${PROJECT_SOURCE_DIR}/common/data/ops.toml)
  # test.cu and the instructor's tests: Lab.tests(), whose tiers and traced-ness the generator writes.
  file(GLOB instructor ${PROJECT_SOURCE_DIR}/solutions/${folder}/instructor_*_test.cu)
  set(deps ${toml} ${probe} ${lablib} ${model} ${instructor})
  if(EXISTS ${jdir}/test.cu)
    list(APPEND deps ${jdir}/test.cu)
  endif()
  if(EXISTS ${answers})
    list(APPEND deps ${answers})
  endif()
  get_property(batched GLOBAL PROPERTY BANKLAB_DESCRIPTIONS_GENERATED)
  if(NOT batched)  # banklab_generate_descriptions() did not generate them all (or was not called)
    execute_process(COMMAND ${cmd} RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${toml}, the description of lab ${num}, is not valid:\n${err}")
    endif()
  endif()
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${deps})
  set(outs ${BANKLAB_GENERATED_DIR}/grader/lab${num}_description.hpp ${BANKLAB_GENERATED_DIR}/grader/lab${num}_probe.hpp
           ${BANKLAB_GENERATED_DIR}/grader/lab${num}_judge.hpp
           ${BANKLAB_GENERATED_DIR}/lab${num}_questions_test.cpp ${BANKLAB_GENERATED_DIR}/lab${num}_gpu_test.cu
           ${BANKLAB_GENERATED_DIR}/lab${num}_variants.cpp)
  # Generated at configure time (above), and again by the configure step that any change of
  # ${deps} starts (CMAKE_CONFIGURE_DEPENDS; the generator writes only files that changed). A build
  # step as well would run in every first build (ninja has no record of it), and ninja 1.11 starts
  # it after every other ready step of the build file before it: the lab's test.cu, the first
  # build's longest compile, waited for it until the judge's own files were all compiled
  # (bench/first_command.sh). Still a target of its own, which the lab's tests depend on.
  if(batched AND EXISTS ${BANKLAB_GENERATED_DIR}/lab${num}_questions_test.cpp
     AND EXISTS ${BANKLAB_GENERATED_DIR}/lab${num}_gpu_test.cu AND EXISTS ${BANKLAB_GENERATED_DIR}/lab${num}_variants.cpp)
    add_custom_target(banklab_lab${num}_description)
  else()
    add_custom_command(OUTPUT ${outs} COMMAND ${cmd} DEPENDS ${deps}
                       COMMENT "Generating lab ${num}'s description (${toml})" VERBATIM)
    add_custom_target(banklab_lab${num}_description DEPENDS ${outs})
  endif()
  # labNN_gpu_test.cu: the GPU tests the description makes (python/banklab/lab/gen_gpu.py), after the
  # questions' file (googletest registers in link order: test.cu's own tests first, as Lab.tests() lists them).
  # labNN_variants.cpp: the questions of the lab's per-student variants (docs/dev/VARIANTS.md), no TEST of its own.
  set(${out_var} ${BANKLAB_GENERATED_DIR}/lab${num}_questions_test.cpp ${BANKLAB_GENERATED_DIR}/lab${num}_gpu_test.cu
      ${BANKLAB_GENERATED_DIR}/lab${num}_variants.cpp PARENT_SCOPE)
endfunction()

# Generates every lab's C++ at configure time in one Python process (banklab.lab.gen --batch), so
# that configuring does not start Python once per lab. Labs given as banklab_find_labs() lists
# them. When a description is broken nothing is marked done, and banklab_lab_description() runs
# the generator for each lab again, which names the file and the key.
function(banklab_generate_descriptions)
  if(NOT Python3_FOUND)
    return()
  endif()
  set(args)
  set(labs ${ARGN})
  while(labs)
    list(POP_FRONT labs num folder)
    banklab_judge_dir(${num} jdir)
    list(APPEND args ${jdir}/lab.toml ${jdir}/probe.cu ${PROJECT_SOURCE_DIR}/solutions/${folder}/answers.toml)
  endwhile()
  if(NOT args)
    return()
  endif()
  execute_process(COMMAND ${BANKLAB_PY} -m banklab.lab.gen --batch
                          ${BANKLAB_GENERATED_DIR} ${args}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set_property(GLOBAL PROPERTY BANKLAB_DESCRIPTIONS_GENERATED TRUE)
  endif()
endfunction()

function(banklab_add_lab num folder)
  set(label lab${num})
  set(work ${CMAKE_BINARY_DIR}/judge/${label})
  set(results ${CMAKE_BINARY_DIR}/results)
  set(graded)
  if(BANKLAB_GRADED)
    set(graded --graded)
  endif()
  set(source ${PROJECT_SOURCE_DIR}/${BANKLAB_GRADE}/${folder}/kernel.cu)

  add_test(NAME ${label}.build
           COMMAND banklab_judge_lab${num} build --lab ${num} --source ${source} --work ${work} --results ${results} ${graded})
  set_tests_properties(${label}.build PROPERTIES LABELS "${label};cpu")
  set_tests_properties(${label}.build PROPERTIES FIXTURES_SETUP ${label}_built TIMEOUT 150)

  get_property(lab_tests GLOBAL PROPERTY BANKLAB_TESTS_${num})   # name;tier;labels;kind;traced;timed per test
  set(all_tests)
  set(gpu_correct)
  while(lab_tests)
    list(POP_FRONT lab_tests t tier labels kind traced timed)
    list(APPEND all_tests ${t})
    string(REPLACE "," ";" labels "${labels}")
    add_test(NAME ${label}.${t}
             COMMAND banklab_judge_lab${num} test --lab ${num} --work ${work} --test ${t} --results ${results} ${graded})
    set_tests_properties(${label}.${t} PROPERTIES LABELS "${labels}")
    if(tier STREQUAL "gpu")
      set_tests_properties(${label}.${t} PROPERTIES TIMEOUT ${BANKLAB_GPU_TEST_TIMEOUT}
                           FIXTURES_REQUIRED ${label}_built RESOURCE_LOCK gpu SKIP_RETURN_CODE 77)
      if(NOT traced AND NOT timed)   # Lab.tests()'s data: a test that neither runs traced nor times
        list(APPEND gpu_correct ${t})
      endif()
    else()
      set_tests_properties(${label}.${t} PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED ${label}_built)
      if(kind STREQUAL "question")   # without solutions/ (the student release): graded by the instructor
        set_tests_properties(${label}.${t} PROPERTIES SKIP_RETURN_CODE 77)
      endif()
    endif()
  endwhile()

  # The last line of the lab's run (grader/run_summary.py): what was judged, what was not and
  # why, points included; it runs after every test of the lab (the fixture's cleanup) and passes
  # unless evidence is missing. ctest hides a passing test's output: CTestCustom.cmake (below,
  # banklab_run_summary_at_the_end) prints the same line after ctest's own summary.
  string(REPLACE ";" "\n" tests_text "${all_tests}")
  file(WRITE ${CMAKE_BINARY_DIR}/judge/${label}.tests "${tests_text}\n")
  if(Python3_FOUND)
    add_test(NAME ${label}.summary
             COMMAND ${BANKLAB_PY} ${PROJECT_SOURCE_DIR}/grader/run_summary.py --lab ${num} --results ${results}
                     --tests ${CMAKE_BINARY_DIR}/judge/${label}.tests --root ${PROJECT_SOURCE_DIR})
    set_tests_properties(${label}.summary PROPERTIES LABELS "${label};cpu" FIXTURES_CLEANUP ${label}_built TIMEOUT 60)
  endif()

  # Optional GPU tools on the correctness tests (each GPU test that neither runs traced nor times, as
  # Lab.tests() says, not as its name does): compute-sanitizer (memcheck, racecheck) and
  # Nsight Compute as a cross-check of the model (instruction counts, wavefronts as a lower bound).
  if(gpu_correct AND Python3_FOUND)
    string(REPLACE ";" "," gpu_correct_csv "${gpu_correct}")
    set(tool_cmd ${BANKLAB_PY} ${PROJECT_SOURCE_DIR}/grader/run_gpu_tool.py
        --judge $<TARGET_FILE:banklab_judge_lab${num}> --lab ${num} --work ${work} --tests ${gpu_correct_csv})
    set(tool_props FIXTURES_REQUIRED ${label}_built RESOURCE_LOCK gpu TIMEOUT 900 SKIP_RETURN_CODE 77)
    if(BANKLAB_COMPUTE_SANITIZER)
      foreach(tool IN ITEMS memcheck racecheck)
        add_test(NAME ${label}.sanitize.${tool} COMMAND ${tool_cmd} --tool ${tool} --sanitizer ${BANKLAB_COMPUTE_SANITIZER})
        set_tests_properties(${label}.sanitize.${tool} PROPERTIES LABELS "${label};gpu;sanitize")
        set_tests_properties(${label}.sanitize.${tool} PROPERTIES ${tool_props})
      endforeach()
    endif()
    if(BANKLAB_NCU)
      add_test(NAME ${label}.ncu COMMAND ${tool_cmd} --tool ncu --ncu ${BANKLAB_NCU})
      set_tests_properties(${label}.ncu PROPERTIES LABELS "${label};gpu;ncu")
      set_tests_properties(${label}.ncu PROPERTIES ${tool_props})
    endif()
  endif()
endfunction()

# The labs of the course. What a lab is has one home, python/banklab/lab/labs.py (the Python
# package every tool reads labs with); CMake asks it.
#
#   banklab_find_labs(<out-var> [ROOT <dir>])    e.g. sets out-var to "00;00_bank_mapping;01;..."
#
# A lab is a folder labs/NN_name/ holding its stub kernel.cu and its judge's files (description
# lab.toml, probe.cu, test.cu) in labs/NN_name/judge/ (grader/labs/NN_name/ in the student release).
# The result is a flat list of pairs, number then folder, in lab order; banklab_judge_dir(<NN> <var>)
# then gives a lab's judge folder (banklab.lab.labs's judge_dir(), the one rule). ROOT defaults to the source
# tree that holds this file. A lab folder or description added later re-runs the configure step.
function(banklab_find_labs out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ROOT" "")
  if(NOT arg_ROOT)
    get_filename_component(arg_ROOT "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  endif()
  # Asked once a configure step (grader/ and docs/ both ask; each answer costs two Python starts).
  get_property(known GLOBAL PROPERTY "BANKLAB_FOUND_LABS ${arg_ROOT}" SET)
  if(known)
    get_property(labs GLOBAL PROPERTY "BANKLAB_FOUND_LABS ${arg_ROOT}")
    set(${out_var} ${labs} PARENT_SCOPE)
    return()
  endif()
  set(python "${Python3_EXECUTABLE}")
  if(NOT python)
    set(python python3)
  endif()
  execute_process(COMMAND "${python}" "${arg_ROOT}/python/banklab_run.py" -m banklab.lab.labs cmake "${arg_ROOT}"
                  OUTPUT_VARIABLE labs ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    if(CMAKE_GENERATOR)
      message(FATAL_ERROR "The labs' descriptions cannot be read (python/banklab/lab/labs.py):\n${err}")
    endif()
    message(WARNING "The labs' descriptions cannot be read (python/banklab/lab/labs.py):\n${err}")
    set(labs)
  endif()
  execute_process(COMMAND "${python}" "${arg_ROOT}/python/banklab_run.py" -m banklab.lab.labs judge-dirs "${arg_ROOT}"
                  OUTPUT_VARIABLE dirs ERROR_QUIET)
  while(dirs)
    list(POP_FRONT dirs n d)
    set_property(GLOBAL PROPERTY BANKLAB_JUDGE_DIR_${n} "${d}")
  endwhile()
  # Each lab's tests: Lab.tests(), the one list (python/banklab/lab/lab_tests.py); banklab_add_lab() reads them.
  execute_process(COMMAND "${python}" "${arg_ROOT}/python/banklab_run.py" -m banklab.lab.labs tests "${arg_ROOT}"
                  OUTPUT_VARIABLE tests ERROR_QUIET)
  while(tests)
    list(POP_FRONT tests n t tier labels kind traced timed)
    set_property(GLOBAL APPEND PROPERTY BANKLAB_TESTS_${n} "${t}" "${tier}" "${labels}" "${kind}" "${traced}" "${timed}")
  endwhile()
  if(CMAKE_GENERATOR)   # a configure step (not cmake -P, not ctest): watch for labs added or removed
    file(GLOB descriptions CONFIGURE_DEPENDS LIST_DIRECTORIES false "${arg_ROOT}/labs/*/judge/lab.toml"
         "${arg_ROOT}/grader/labs/*/judge/lab.toml")
    file(GLOB folders CONFIGURE_DEPENDS LIST_DIRECTORIES true "${arg_ROOT}/labs/*")
    # ... and for tests added, renamed or removed (Lab.tests() reads these).
    file(GLOB test_sources LIST_DIRECTORIES false "${arg_ROOT}/labs/*/judge/test.cu" "${arg_ROOT}/grader/labs/*/test.cu"
         "${arg_ROOT}/solutions/*/instructor_*_test.cu")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${descriptions} ${test_sources}
                 "${arg_ROOT}/python/banklab/lab/labs.py" "${arg_ROOT}/python/banklab/lab/lab_tests.py")
  endif()
  if(CMAKE_GENERATOR)
    set_property(GLOBAL PROPERTY "BANKLAB_FOUND_LABS ${arg_ROOT}" "${labs}")
  endif()
  set(${out_var} ${labs} PARENT_SCOPE)
endfunction()

# The judge folder of lab <num> (labs/NN_name/judge/, or grader/labs/NN_name/ in the student
# release), as banklab_find_labs() read it from python/banklab/lab/labs.py.
function(banklab_judge_dir num out_var)
  get_property(d GLOBAL PROPERTY BANKLAB_JUDGE_DIR_${num})
  if(NOT d)
    message(FATAL_ERROR "lab ${num}: no judge folder known (banklab_find_labs() first)")
  endif()
  set(${out_var} ${d} PARENT_SCOPE)
endfunction()

# Every ctest run in the build folder ends with the summary line of each lab it graded
# (grader/run_summary.py --post): ctest runs CTEST_CUSTOM_PRE_TEST before its tests (a stamp:
# the run's start) and CTEST_CUSTOM_POST_TEST after its own summary, and prints what they print.
function(banklab_run_summary_at_the_end)
  if(NOT Python3_FOUND)
    return()
  endif()
  set(results ${CMAKE_BINARY_DIR}/results)
  file(WRITE ${CMAKE_BINARY_DIR}/CTestCustom.cmake
       "# Generated by cmake/BanklabLab.cmake: the summary line after each ctest run (grader/run_summary.py)\n"
       "set(CTEST_CUSTOM_PRE_TEST \"\\\"${CMAKE_COMMAND}\\\" -E make_directory \\\"${results}\\\"\" "
       "\"\\\"${CMAKE_COMMAND}\\\" -E touch \\\"${results}/.ctest-start\\\"\")\n"
       "set(CTEST_CUSTOM_POST_TEST \"\\\"${Python3_EXECUTABLE}\\\" \\\"${PROJECT_SOURCE_DIR}/grader/run_summary.py\\\" "
       "--post --results \\\"${results}\\\" --judge-dir \\\"${CMAKE_BINARY_DIR}/judge\\\" "
       "--root \\\"${PROJECT_SOURCE_DIR}\\\"\")\n")
endfunction()
