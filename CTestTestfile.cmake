# Lets `ctest -L lab05` work from the repository root, as well as `ctest --test-dir build/dev -L lab05`:
# the tests are those of the student build (build/dev, made by `cmake --workflow --preset lab05`).
# Before that build exists, every lab label selects one test that fails and says what to run.
# (ctest defines no directory variables here; it runs from the folder that holds this file)
if(EXISTS "build/dev/CTestTestfile.cmake")
  subdirs("build/dev")
else()
  include("cmake/BanklabLab.cmake")   # banklab_find_labs: what a lab is
  file(REAL_PATH "." _root)
  banklab_find_labs(_labs ROOT "${_root}")
  set(_labels)
  while(_labs)
    list(POP_FRONT _labs n folder)
    list(APPEND _labels "lab${n}")
  endwhile()
  add_test(banklab.not_configured sh -c "echo 'No build yet: run  cmake --workflow --preset lab00  (any lab) first, then  ctest -L labNN'; exit 1")
  set_tests_properties(banklab.not_configured PROPERTIES LABELS "${_labels}")
endif()
