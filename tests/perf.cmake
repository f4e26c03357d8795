# Performance (issue 17): the streaming event path. test_event_window is a
# unit test of the in-flight window and its sinks; test_rss runs 100,000
# traced events and checks every process stays under 64 MiB.
il_add_test(test_event_window SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_event_window.c LIBS il_harness)
# "beside": it judges memory, not time, and changes no knob, so scripts/test
# runs it next to the ASan pass (it holds under stress-ng --cpu 2 as well);
# "nosan": the memory it judges is the plain build's, not ASan's.
il_add_run_test(test_rss SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rss.c
                LIBS PkgConfig::CJSON LABELS "unit;beside;nosan" TIMEOUT 240)
if(IL_WITH_SPIN)
  # One BPF program per run: records handed over a socket (root, BPF).
  il_add_run_test(test_oncpu_share SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_oncpu_share.c
                  LIBS il_wire il_spin LABELS root TIMEOUT 90)
endif()
# The floor bench/overhead holds hops against (bench/il_floor.c): a same-CPU
# SCHED_FIFO pair must measure the wake-up, not a sender that keeps the CPU.
il_add_test(test_floor SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_floor.c LIBS il_floor LABELS root)
# What a benchmark's JSON records of itself (its command line, its rows).
il_add_run_test(test_bench_json SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bench_json.c
                LIBS PkgConfig::CJSON TIMEOUT 150)
# and every benchmark's failed stdout (one line, exit 1).
# lock-bench (IL_WITH_SPIN) and bpf-floor (BPF) are not built everywhere:
# the test says which it did not check.
foreach(bench rss-events hop-floor hop-cost lock-bench overhead bpf-floor)
  if(TARGET ${bench})
    add_dependencies(test_bench_json ${bench})
  endif()
endforeach()
