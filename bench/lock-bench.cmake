# bench/lock-bench: contended-lock throughput, latency and fairness of
# pthread, adaptive-np, a TAS spin lock and il_spin (none, bpf); and what
# il_spin's sched_switch program adds to a context switch against empty
# programs at the same hooks (switch-floor.bpf.c; spin/'s clang and bpftool).
il_bpf_skeleton(switch_floor_skel ${CMAKE_CURRENT_LIST_DIR}/switch-floor.bpf.c switch_floor_bpf
                ${IL_CLANG} ${IL_BPFTOOL})
# The per-thread on-CPU clock lock-bench samples lock()'s CPU with.
pkg_check_modules(TCLOCK_LIBBPF REQUIRED IMPORTED_TARGET libbpf)
il_bpf_skeleton(thread_clock_skel ${CMAKE_CURRENT_LIST_DIR}/thread-clock.bpf.c thread_clock_bpf
                ${IL_CLANG} ${IL_BPFTOOL}
                INCLUDE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_SOURCE_DIR}/common
                DEPENDS ${CMAKE_CURRENT_LIST_DIR}/il_tclock_rec.h
                        ${CMAKE_SOURCE_DIR}/common/il_sched_switch_args.h)
add_library(il_tclock STATIC ${CMAKE_CURRENT_LIST_DIR}/il_tclock.c ${thread_clock_skel_SKEL})
add_dependencies(il_tclock thread_clock_skel)
target_include_directories(il_tclock PUBLIC ${CMAKE_CURRENT_LIST_DIR} PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(il_tclock PUBLIC il_common PkgConfig::TCLOCK_LIBBPF Threads::Threads m)
add_executable(lock-bench ${CMAKE_CURRENT_LIST_DIR}/lock-bench.c
               ${CMAKE_CURRENT_LIST_DIR}/lock-bench-figures.c ${CMAKE_CURRENT_LIST_DIR}/lock-bench-verdict.c
               ${CMAKE_CURRENT_LIST_DIR}/il_switch_cost.c ${switch_floor_skel_SKEL})
add_dependencies(lock-bench switch_floor_skel)
target_include_directories(lock-bench PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_compile_definitions(lock-bench PRIVATE IL_VERSION="${PROJECT_VERSION}")
target_link_libraries(lock-bench PRIVATE il_bench il_tclock il_spin il_wire il_common PkgConfig::CJSON Threads::Threads m)
set_target_properties(lock-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
install(TARGETS lock-bench RUNTIME DESTINATION ${IL_LIBEXECDIR})
