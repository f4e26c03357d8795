# The hop chain (issue 2): codec, histogram, end-to-end runs.
il_add_test(test_msg SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_msg.c LIBS il_wire)
il_add_test(test_chain_table SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chain_table.c LIBS il_common)
il_add_test(test_hist SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hist.c LIBS il_common m)
il_add_test(test_file SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_file.c LIBS il_common)
# A handler's work under the cpu-time and loops models (common/il_work).
il_add_test(test_work SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_work.c LIBS il_common LABELS unit)
il_add_test(test_parse SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_parse.c LIBS il_common m)
il_add_test(test_tracefs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tracefs.c LIBS il_common)
il_add_test(test_procfs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_procfs.c LIBS il_common Threads::Threads)
il_add_run_test(test_chain SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chain.c LIBS il_wire TIMEOUT 180)
il_add_test(test_halt SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_halt.c LIBS il_wire)
il_add_test(test_msg_fifo SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_msg_fifo.c LIBS il_wire)
il_add_test(test_queue SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_queue.c LIBS il_wire LABELS "unit;tsan")
# What a child reports ready with, checked once as it arrives.
il_add_test(test_thread_record SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_thread_record.c LIBS il_harness)
