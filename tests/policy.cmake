# Policy engine, per-thread scheduling and system knobs (policies/), and
# the policies/check/restore subcommands built on them (from il_harness).
il_add_test(test_policy SOURCES test_policy.c
            LIBS il_harness Threads::Threads LABELS unit TIMEOUT 30)
il_add_test(test_sched SOURCES test_sched.c LIBS il_policy Threads::Threads
            LABELS unit root TIMEOUT 60)
# Why the kernel refuses a class (il_sched_refusal): without CAP_SYS_NICE,
# deadline on a narrowed affinity, an RT group without runtime; on one
# thread, then as run and check meet them. Root: it takes privilege away.
il_add_run_test(test_sched_refusal SOURCES test_sched_refusal.c LIBS il_policy
                LABELS root TIMEOUT 120)
# Which knob holds RT threads back (il_rt_throttle): the rule's branches
# from their inputs, and the probe against this machine's files.
il_add_test(test_rt_throttle SOURCES test_rt_throttle.c LIBS il_policy LABELS unit)
# The harness's threads start from the policy's baseline under chrt/nice.
il_add_run_test(test_harness_threads SOURCES test_harness_threads.c LIBS il_harness
                LABELS root TIMEOUT 120)
# The knob fixture may wait up to 120 s for another suite or run that
# holds the knobs, and runs `inputlat restore` for a dead run's leftovers.
il_add_run_test(test_knobs SOURCES test_knobs.c
                LIBS il_test_knobs il_harness Threads::Threads LABELS root TIMEOUT 180)
# The fair server's probe under a fake fair-server directory (its own
# mount namespace) and a write that fails or dies (--wrap).
il_add_test(test_knobs_probe SOURCES test_knobs_probe.c LIBS il_policy LABELS root)
target_link_options(test_knobs_probe PRIVATE -Wl,--wrap=il_sysinfo_write_value)
add_dependencies(test_policy il_policy_files)
add_dependencies(test_sched il_policy_files)
# Chrome's own policies (issues 15, 20): chromeos and chromeos-rt run for
# real, every thread read back live and from the report; the optional
# uclamp path where the kernel has none. Needs root for the runs.
il_add_run_test(test_policy_chromeos SOURCES test_policy_chromeos.c
                LIBS il_policy LABELS root TIMEOUT 240)
# What every report says it measured (issue 15): kernel and machine facts
# from il_sysinfo, in check --json and in a run's JSON.
il_add_run_test(test_sysinfo SOURCES test_sysinfo.c LIBS il_policy LABELS unit TIMEOUT 120)
