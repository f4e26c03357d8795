# Policy engine, per-thread scheduling and system knobs (policies/).
if(TARGET il_policy)
  il_add_test(test_policy SOURCES test_policy.c LIBS il_policy LABELS unit TIMEOUT 30)
  add_dependencies(test_policy il_policy_files)
  il_add_test(test_sched SOURCES test_sched.c LIBS il_policy Threads::Threads
              LABELS unit root TIMEOUT 60)
  il_add_test(test_knobs SOURCES test_knobs.c LIBS il_policy LABELS root TIMEOUT 60)
endif()
