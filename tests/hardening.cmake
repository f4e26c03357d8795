# Hardening (issue 8): crash safety of the system knobs under SIGKILL,
# faults in each child, a table of bad inputs (data in tests/data/bad/),
# and runs as an unprivileged user. The root-labelled tests skip each case
# with the reason when not root; test_knob_kill takes the knob fixture's
# suite lock like test_policy_run_*, so that no two of them change the
# system knobs at the same time.
# test_knob_kill is "slow" (40 s of SIGKILLs at random moments): the
# sanitizer pass leaves it out, as a killed process reports nothing.
il_add_run_test(test_knob_kill SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_knob_kill.c
                LIBS il_test_knobs LABELS "root;slow" TIMEOUT 300)
il_add_run_test(test_faults SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_faults.c
                LABELS unit TIMEOUT 180)
# Its stall cases hold the orchestrator's loop 2 s and judge which timeouts
# it then claims: timing logic, in code every run takes (a killed child is
# the sigkill cases' too): "slow", registered apart (10 s under ASan).
set_property(TEST test_faults APPEND PROPERTY ENVIRONMENT "IL_TEST_SKIP=*_stall_*")
add_test(NAME test_faults_stall COMMAND test_faults)
set_tests_properties(test_faults_stall PROPERTIES LABELS "unit;slow" TIMEOUT 180
                     SKIP_RETURN_CODE 77
                     ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR};IL_TEST_ONLY=*_stall_*")
# What test_faults's SIGKILLs rely on: a dying child is not called hung.
il_add_test(test_spawn SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spawn.c LIBS il_harness)
il_add_run_test(test_bad_input SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bad_input.c
                LIBS il_test_knobs LABELS unit TIMEOUT 180)
# It also gives the benchmarks bad options.
add_dependencies(test_bad_input overhead rss-events hop-floor hop-cost)
if(TARGET bpf-floor)
  add_dependencies(test_bad_input bpf-floor)
endif()
if(TARGET lock-bench)
  add_dependencies(test_bad_input lock-bench)
endif()
il_add_run_test(test_nonroot SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_nonroot.c
                LIBS il_test_knobs LABELS root TIMEOUT 180)

# Hardening, round two (issue 16). test_hardening_io: outputs, inputs,
# stdout, terminals, progress, open-file limits and the CLI's largest
# values (root only for another user's file). It changes no knob and judges
# a stop's time only when it measured that other tasks left the CPUs free
# enough: "beside", scripts/test runs it next to the plain pass and, under
# ASan, next to the ASan pass (a minute under ASan off the critical path).
# Its case with 1024 busy threads would starve the pass beside it: that one
# is registered apart, as test_hardening_io_threads, and runs in the passes.
# test_hardening_knobs and test_hardening_stop change the system knobs and
# apply RT policies: root, under the knob fixture's suite lock.
il_add_run_test(test_hardening_io SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hardening_io.c
                LIBS util LABELS "unit;beside" TIMEOUT 300)
set_property(TEST test_hardening_io APPEND PROPERTY ENVIRONMENT
             "IL_TEST_SKIP=test_hardening_io_cli_limits_threads")
add_test(NAME test_hardening_io_threads COMMAND test_hardening_io)
set_tests_properties(test_hardening_io_threads PROPERTIES LABELS unit TIMEOUT 300
                     SKIP_RETURN_CODE 77
                     ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR};IL_TEST_ONLY=test_hardening_io_cli_limits_threads")
# test_hardening_knobs is "slow" but for its two restore cases: the others
# stage runs against one another (the machine's lock across state
# directories, a zombie holder, a watchdog firing after the next run took
# the knobs) and spend their half minute waiting on those runs, whose code
# the sanitizer pass runs elsewhere (test_knobs has the knob module's
# every path, test_policy_run_* whole runs); the restore cases' error paths
# are nowhere else, so they run in every pass, as
# test_hardening_knobs_restore (registered apart, as _io_threads above).
il_add_run_test(test_hardening_knobs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hardening_knobs.c
                LIBS il_test_knobs Threads::Threads LABELS "root;slow" TIMEOUT 300)
set_property(TEST test_hardening_knobs APPEND PROPERTY ENVIRONMENT "IL_TEST_SKIP=*restore_*")
add_test(NAME test_hardening_knobs_restore COMMAND test_hardening_knobs)
set_tests_properties(test_hardening_knobs_restore PROPERTIES LABELS root TIMEOUT 300
                     SKIP_RETURN_CODE 77
                     ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR};IL_TEST_ONLY=*restore_*")
il_add_run_test(test_hardening_stop SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hardening_stop.c
                LIBS il_test_knobs LABELS root TIMEOUT 400)
# Its one_cpu_rt case runs an ordinary RT run five times on one CPU to
# catch a kernel reaping hazard (the loop's priority at the stop), no code
# of ours that the other runs do not take: "slow", registered apart.
set_property(TEST test_hardening_stop APPEND PROPERTY ENVIRONMENT "IL_TEST_SKIP=*one_cpu_rt")
add_test(NAME test_hardening_stop_one_cpu COMMAND test_hardening_stop)
set_tests_properties(test_hardening_stop_one_cpu PROPERTIES LABELS "root;slow" TIMEOUT 300
                     SKIP_RETURN_CODE 77
                     ENVIRONMENT "IL_BUILD_DIR=${CMAKE_BINARY_DIR};IL_SOURCE_DIR=${CMAKE_SOURCE_DIR};IL_TEST_ONLY=*one_cpu_rt")
# It stops a bench/rss-events and a bench/attrib-overhead (over
# bench/bpf-floor) mid-run, and kills a bench/lock-bench.
add_dependencies(test_hardening_stop rss-events)
foreach(bench lock-bench bpf-floor)
  if(TARGET ${bench})
    add_dependencies(test_hardening_stop ${bench})
  endif()
endforeach()
