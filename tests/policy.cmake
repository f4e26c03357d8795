# Policy engine, per-thread scheduling and system knobs (policies/), and
# the policies/check/restore subcommands built on them (harness/cmd_*.c,
# compiled in directly so the tests do not depend on the whole harness).
if(TARGET il_policy)
  set(IL_POLICY_CMDS ${CMAKE_SOURCE_DIR}/harness/cmd_policies.c
                     ${CMAKE_SOURCE_DIR}/harness/cmd_check.c
                     ${CMAKE_SOURCE_DIR}/harness/cmd_restore.c)
  il_add_test(test_policy SOURCES test_policy.c ${IL_POLICY_CMDS}
              LIBS il_policy Threads::Threads LABELS unit TIMEOUT 30)
  il_add_test(test_sched SOURCES test_sched.c LIBS il_policy Threads::Threads
              LABELS unit root TIMEOUT 60)
  il_add_test(test_knobs SOURCES test_knobs.c ${IL_POLICY_CMDS}
              LIBS il_policy Threads::Threads LABELS root TIMEOUT 60)
  foreach(t test_policy test_knobs)
    target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/harness)
  endforeach()
  add_dependencies(test_policy il_policy_files)
  add_dependencies(test_sched il_policy_files)
endif()
