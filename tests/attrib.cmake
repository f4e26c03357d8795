# attrib/: the decomposition engine on synthetic event sequences (unit),
# the BPF capture and whole runs with attribution (root, under the machine lock).
il_add_test(test_attrib SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_attrib.c LIBS il_attrib)
il_add_test(test_attrib_bpf SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_attrib_bpf.c
            LIBS il_attrib il_capture Threads::Threads m LABELS root TIMEOUT 120)
