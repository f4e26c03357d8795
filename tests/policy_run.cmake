# Scheduling policies end to end (issue 3), one executable per behaviour:
# every built-in applied for real and read back live and from the report;
# the system knobs after SIGKILL and SIGINT; RLIMIT_RTTIME on a runaway;
# bad policies. The root-labelled ones skip each case with the reason when
# not root, and take the knob fixture's suite lock (tests/lib/il_test_knobs.c),
# so that no two suites change the system knobs at once; their timeouts
# leave room for IL_TEST_KNOBS_WAIT_MS (120 s) of waiting for another run.
il_add_run_test(test_policy_run_builtins
                SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_policy_run_builtins.c
                LIBS il_test_knobs LABELS root TIMEOUT 300)
il_add_run_test(test_policy_run_knobs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_policy_run_knobs.c
                LIBS il_test_knobs LABELS root TIMEOUT 240)
il_add_run_test(test_policy_run_rttime SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_policy_run_rttime.c
                LIBS il_test_knobs LABELS root TIMEOUT 180)
il_add_run_test(test_policy_run_bad SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_policy_run_bad.c
                LIBS il_test_knobs LABELS unit TIMEOUT 60)
