# spin/: the adaptive-spinning mutex (unit) and its BPF on-CPU source (root);
# lock-bench's on-CPU clock (root) and verdicts.
if(IL_WITH_SPIN)
# The exclusion stress both tests run (tests/lib/il_test_spin.c).
add_library(il_test_spin STATIC ${CMAKE_CURRENT_LIST_DIR}/lib/il_test_spin.c)
target_link_libraries(il_test_spin PUBLIC il_test il_spin Threads::Threads)
il_add_test(test_spin SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spin.c
            LIBS il_test_spin il_wire LABELS "unit;tsan" TIMEOUT 60)
il_add_test(test_spin_bpf SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_spin_bpf.c
            LIBS il_test_spin il_wire LABELS "root;tsan" TIMEOUT 60)
# Its publish case runs `ilspin-oncpu --status`: built with it, in every
# build (the TSan one builds only its labelled tests and what they need).
add_dependencies(test_spin_bpf ilspin-oncpu)
# lock-bench's per-thread on-CPU clock (bench/il_tclock, root).
il_add_test(test_tclock SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tclock.c
            LIBS il_tclock LABELS "root" TIMEOUT 60)
# lock-bench's verdicts where il-bpf ran without its on-CPU source, and its
# held-time ceiling on ops.
il_add_test(test_lock_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_lock_bench.c
            LABELS "unit" TIMEOUT 60)
add_dependencies(test_lock_bench lock-bench)
endif()
