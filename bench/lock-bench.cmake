# bench/lock-bench: contended-lock throughput, latency and fairness of
# pthread, adaptive-np, a TAS spin lock and il_spin (none, bpf).
add_executable(lock-bench ${CMAKE_CURRENT_LIST_DIR}/lock-bench.c)
target_compile_definitions(lock-bench PRIVATE IL_VERSION="${PROJECT_VERSION}")
target_link_libraries(lock-bench PRIVATE il_bench il_spin il_wire il_common PkgConfig::CJSON Threads::Threads m)
set_target_properties(lock-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
install(TARGETS lock-bench RUNTIME DESTINATION ${IL_LIBEXECDIR})
