# Sweep, statistics and trace area (issue 6).
find_package(Python3 COMPONENTS Interpreter)

il_add_test(test_stats SOURCES test_stats.c LIBS il_common m LABELS unit TIMEOUT 120)
# Its two error-rate simulations (seeded, deterministic: about 15 s plain
# and 25 s under ASan) judge no timing and change no knob: registered apart
# as test_stats_sim, labelled "beside" and "nosan", scripts/test runs them
# from the plain build next to the ASan pass. Every engine case stays in
# test_stats, under the sanitizers too.
set_property(TEST test_stats APPEND PROPERTY ENVIRONMENT "IL_TEST_SKIP=test_stats_sim_*")
add_test(NAME test_stats_sim COMMAND test_stats)
set_tests_properties(test_stats_sim PROPERTIES LABELS "unit;beside;nosan" TIMEOUT 240
                     SKIP_RETURN_CODE 77
                     ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR};IL_TEST_ONLY=test_stats_sim_*")
il_add_test(test_trace SOURCES test_trace.c LIBS il_harness LABELS unit TIMEOUT 60)
# compare's verdicts on made-up reports (6 s, its permutation tests):
# no run, no knob, no timing judged, so "beside" (the lanes next to the
# plain and the ASan pass, which kept the suite past ten minutes).
il_add_test(test_compare SOURCES test_compare.c LIBS il_harness m LABELS "unit;beside" TIMEOUT 60)
# The run report: warm-up, work accuracy, null percentiles, --hist; two real runs.
il_add_run_test(test_report SOURCES test_report.c LIBS il_harness m TIMEOUT 180)

if(Python3_Interpreter_FOUND)
  # "python": the code under test is the sweep's Python, which no sanitizer
  # sees; the sanitizer passes of scripts/test leave these two out (the
  # inputlat runs of sweep_real are the plain ones every other test makes).
  # scripts/policy-sweep against tests/fake-inputlat: no root, no real runs,
  # no knob and no timing judged, so "beside" (and "nosan") too:
  # scripts/test runs it next to the ASan pass (26 s off the suite's
  # critical path).
  add_test(NAME test_sweep
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py)
  set_tests_properties(test_sweep PROPERTIES TIMEOUT 300 LABELS "unit;python;beside;nosan" SKIP_RETURN_CODE 77
                       ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR}")

  # The same sweep on the real build/inputlat (root: policies change classes).
  add_test(NAME sweep_real
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py
                   --real ${CMAKE_BINARY_DIR}/inputlat)
  set_tests_properties(sweep_real PROPERTIES TIMEOUT 600 LABELS "root;python" SKIP_RETURN_CODE 77
                       ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endif()
