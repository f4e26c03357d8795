# Policy engine, per-thread scheduling and system knobs (policies/), and
# the policies/check/restore subcommands built on them (from il_harness).
il_add_test(test_policy SOURCES test_policy.c
            LIBS il_harness Threads::Threads LABELS unit TIMEOUT 30)
il_add_test(test_sched SOURCES test_sched.c LIBS il_policy Threads::Threads
            LABELS unit root TIMEOUT 60)
# The knob fixture may wait up to 120 s for another suite or run that
# holds the knobs, and runs `inputlat restore` for a dead run's leftovers.
il_add_run_test(test_knobs SOURCES test_knobs.c
                LIBS il_test_knobs il_harness Threads::Threads LABELS root TIMEOUT 180)
add_dependencies(test_policy il_policy_files)
add_dependencies(test_sched il_policy_files)
