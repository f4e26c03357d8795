# Scheduling policies end to end (issue 3): every built-in applied for real
# and read back live and from the report, system knobs after SIGKILL and
# SIGINT, RLIMIT_RTTIME on a runaway, bad policies. Most cases need root;
# each skips with the reason otherwise. il_test_proc comes from chain.cmake.
il_add_test(test_policy_run SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_policy_run.c
            LIBS il_test_proc il_policy il_common PkgConfig::CJSON LABELS root TIMEOUT 300)
add_dependencies(test_policy_run inputlat browser-sim render-sim viz-sim il-workload)
