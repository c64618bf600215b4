# How CMake runs the course's Python programs: through python/banklab_run.py, the one file that
# puts the banklab package (python/banklab/) on Python's path (and in PYTHONPATH, for the programs
# they start). BANKLAB_PY is a command: `${BANKLAB_PY} script.py ARGS` or `${BANKLAB_PY} -m MODULE ARGS`.
find_package(Python3 COMPONENTS Interpreter)
set(BANKLAB_PY ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/../python/banklab_run.py)
