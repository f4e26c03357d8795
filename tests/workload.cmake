# Workload area (issue 4): worker groups, the JS hog, background load,
# canary, /proc/stat idle accounting and `inputlat reproduce`.
# The worker groups the hog, the load and the canary are built on. One case
# makes its members SCHED_FIFO behind the closed gate (skips without privilege).
il_add_test(test_workers SOURCES test_workers.c LIBS il_sim LABELS unit TIMEOUT 60)
il_add_test(test_cpustat SOURCES test_cpustat.c LIBS il_common LABELS unit TIMEOUT 30)
# /dev/cpu_dma_latency held only when it is PM QoS's device (common/).
il_add_test(test_dma_latency SOURCES test_dma_latency.c LIBS il_common LABELS root TIMEOUT 30)
il_add_test(test_hog SOURCES test_hog.c LIBS il_hog LABELS unit TIMEOUT 60)
# Pins a SCHED_FIFO busy thread for 2 s (skips without CAP_SYS_NICE).
il_add_test(test_canary SOURCES test_canary.c LIBS il_workload_mods LABELS root TIMEOUT 60)

# The child program over a socketpair on fd 3, as `inputlat run` uses it.
il_add_test(test_workload SOURCES test_workload.c LIBS il_wire PkgConfig::CJSON
            LABELS unit TIMEOUT 60)
add_dependencies(test_workload il-workload)

# The whole story on the real harness: about 2 minutes, root. The knob
# fixture may wait up to 120 s for another suite or run holding the knobs.
# "slow": the sanitizer pass leaves it out (scripts/test): its code paths
# are run's, which the other tests run under the sanitizers.
il_add_run_test(test_reproduce SOURCES test_reproduce.c LIBS il_test_knobs PkgConfig::CJSON
                LABELS "root;slow" TIMEOUT 400)

# --background (issue 15): the load generator stops on every exit path,
# SIGKILL of the orchestrator included (the next check cleans up), and its
# CPU share is reported. Own state directory; no root needed.
il_add_run_test(test_background SOURCES test_background.c LIBS il_harness LABELS unit TIMEOUT 180)
