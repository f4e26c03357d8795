# bench/bpf-floor: what a sched_switch program costs here before it does
# attribution's work, in steps (issue 12). Built where attrib/ has its BPF
# tools (IL_ATTRIB_HAVE_BPF): the same clang and bpftool.
pkg_check_modules(FLOOR_LIBBPF REQUIRED IMPORTED_TARGET libbpf)
il_bpf_skeleton(bpf_floor_skel ${CMAKE_CURRENT_LIST_DIR}/bpf-floor.bpf.c bpf_floor_bpf
                ${IL_ATTRIB_CLANG} ${IL_ATTRIB_BPFTOOL}
                INCLUDE ${CMAKE_SOURCE_DIR}/attrib ${CMAKE_SOURCE_DIR}/common
                DEPENDS ${CMAKE_SOURCE_DIR}/attrib/il_kev.h ${CMAKE_SOURCE_DIR}/attrib/il_kev_switch.h
                        ${CMAKE_SOURCE_DIR}/common/il_sched_switch_args.h
                        ${CMAKE_SOURCE_DIR}/attrib/il_kring.h ${CMAKE_SOURCE_DIR}/attrib/il_kring.bpf.h)
add_executable(bpf-floor ${CMAKE_CURRENT_LIST_DIR}/bpf-floor.c ${bpf_floor_skel_SKEL})
add_dependencies(bpf-floor bpf_floor_skel)
target_include_directories(bpf-floor PRIVATE ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_SOURCE_DIR}/attrib)
target_link_libraries(bpf-floor PRIVATE il_bench il_common PkgConfig::FLOOR_LIBBPF PkgConfig::CJSON)
set_target_properties(bpf-floor PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
