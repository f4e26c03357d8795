# Workload area (issue 4): the JS hog, background load, canary, /proc/stat
# idle accounting and `inputlat reproduce`.
if(NOT TARGET il-workload)
  include(${CMAKE_SOURCE_DIR}/harness/workload.cmake)
endif()

if(TARGET il_common)
  il_add_test(test_cpustat SOURCES test_cpustat.c LIBS il_common LABELS unit TIMEOUT 30)

  il_add_test(test_hog SOURCES test_hog.c ${CMAKE_SOURCE_DIR}/render-sim/il_hog.c
              LIBS il_common PkgConfig::CJSON Threads::Threads LABELS unit TIMEOUT 60)
  target_include_directories(test_hog PRIVATE ${CMAKE_SOURCE_DIR}/render-sim)

  # Pins a SCHED_FIFO busy thread for 2 s (skips without CAP_SYS_NICE).
  il_add_test(test_canary SOURCES test_canary.c ${CMAKE_SOURCE_DIR}/harness/il_canary.c
              ${CMAKE_SOURCE_DIR}/harness/il_load.c
              LIBS il_common PkgConfig::CJSON Threads::Threads LABELS root TIMEOUT 60)
  target_include_directories(test_canary PRIVATE ${CMAKE_SOURCE_DIR}/harness)

  # The child program over a socketpair on fd 3, as `inputlat run` uses it.
  if(TARGET il-workload)
    il_add_test(test_workload SOURCES test_workload.c LIBS il_common PkgConfig::CJSON
                LABELS unit TIMEOUT 60)
    add_dependencies(test_workload il-workload)
  endif()

  # The whole story on the real harness: about 60 s, root.
  il_add_test(test_reproduce SOURCES test_reproduce.c LIBS PkgConfig::CJSON
              LABELS root TIMEOUT 180)
endif()
