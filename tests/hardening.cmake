# Hardening (issue 8): crash safety of the system knobs under SIGKILL,
# faults in each child, a table of bad inputs (data in tests/data/bad/),
# and runs as an unprivileged user. il_test_proc comes from chain.cmake.
# The root-labelled tests skip each case with the reason when not root;
# test_knob_kill shares test_policy_run's lock file, so the two never
# change the system knobs at the same time.
il_add_test(test_knob_kill SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_knob_kill.c
            LIBS il_test_proc il_policy il_common PkgConfig::CJSON LABELS root TIMEOUT 300)
add_dependencies(test_knob_kill inputlat browser-sim render-sim viz-sim il-workload)

il_add_test(test_faults SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_faults.c
            LIBS il_test_proc il_policy il_common PkgConfig::CJSON LABELS unit TIMEOUT 180)
add_dependencies(test_faults inputlat browser-sim render-sim viz-sim il-workload)

il_add_test(test_bad_input SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bad_input.c
            LIBS il_test_proc il_policy il_common PkgConfig::CJSON LABELS unit TIMEOUT 180)
add_dependencies(test_bad_input inputlat browser-sim render-sim viz-sim il-workload)

il_add_test(test_nonroot SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_nonroot.c
            LIBS il_test_proc il_policy il_common PkgConfig::CJSON LABELS root TIMEOUT 180)
add_dependencies(test_nonroot inputlat browser-sim render-sim viz-sim il-workload)
