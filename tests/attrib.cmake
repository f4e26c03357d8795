# attrib/: the decomposition engine on synthetic event sequences (unit),
# the BPF capture and whole runs with attribution (root, under the machine lock).
il_add_test(test_attrib SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_attrib.c LIBS il_attrib)
il_add_test(test_attrib_bpf SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_attrib_bpf.c
            LIBS il_attrib il_capture Threads::Threads m LABELS root TIMEOUT 120)
il_add_test(test_explain SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_explain.c LIBS il_harness il_attrib)
il_add_run_test(test_attrib_run SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_attrib_run.c
                LIBS il_harness m LABELS root TIMEOUT 400)
il_add_test(test_kring SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_kring.c LIBS il_kring)
