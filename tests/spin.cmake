# spin/: the adaptive-spinning mutex (unit) and its BPF on-CPU source (root).
if(IL_WITH_SPIN)
il_add_test(test_spin SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spin.c
            LIBS il_spin il_wire LABELS "unit;tsan" TIMEOUT 60)
il_add_test(test_spin_bpf SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spin_bpf.c
            LIBS il_spin il_wire LABELS "root;tsan" TIMEOUT 60)
endif()
