# Replays the fuzz corpora and every crash input the fuzzers found
# (tests/fuzz/corpus/<target>/, tests/fuzz/regress/<target>/) through the
# fuzz targets' own logic, without libFuzzer: part of the normal suite.
il_add_test(test_fuzz_regress
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fuzz_regress.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_frame.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_policy.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_evdev.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_cli.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_report.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_evemu.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_evemu_round.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_state.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_cpustat.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_cpu_bandwidth.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_tracefs.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_sysinfo.c
          ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_input_attr.c
  LIBS il_harness LABELS unit TIMEOUT 60)
target_include_directories(test_fuzz_regress PRIVATE ${CMAKE_CURRENT_LIST_DIR}/fuzz)
target_compile_definitions(test_fuzz_regress PRIVATE
  IL_FUZZ_TREE="${CMAKE_CURRENT_LIST_DIR}/fuzz")
