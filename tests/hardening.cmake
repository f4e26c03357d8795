# Hardening (issue 8): crash safety of the system knobs under SIGKILL,
# faults in each child, a table of bad inputs (data in tests/data/bad/),
# and runs as an unprivileged user. The root-labelled tests skip each case
# with the reason when not root; test_knob_kill takes the knob fixture's
# suite lock like test_policy_run_*, so that no two of them change the
# system knobs at the same time.
il_add_run_test(test_knob_kill SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_knob_kill.c
                LIBS il_test_knobs LABELS root TIMEOUT 300)
il_add_run_test(test_faults SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_faults.c
                LABELS unit TIMEOUT 180)
il_add_run_test(test_bad_input SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bad_input.c
                LIBS il_test_knobs LABELS unit TIMEOUT 180)
il_add_run_test(test_nonroot SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_nonroot.c
                LIBS il_test_knobs LABELS root TIMEOUT 180)
