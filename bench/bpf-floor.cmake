# bench/bpf-floor: what a sched_switch program costs here before it does
# attribution's work, in steps (issue 12). Built where attrib/ has its BPF
# tools (IL_ATTRIB_HAVE_BPF): the same clang and bpftool.
pkg_check_modules(FLOOR_LIBBPF REQUIRED IMPORTED_TARGET libbpf)
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
                OUTPUT_VARIABLE IL_FLOOR_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(IL_FLOOR_BPF_OBJ ${CMAKE_CURRENT_BINARY_DIR}/bpf-floor.bpf.o)
set(IL_FLOOR_SKEL ${CMAKE_CURRENT_BINARY_DIR}/bpf-floor.skel.h)
add_custom_command(
  OUTPUT ${IL_FLOOR_BPF_OBJ}
  COMMAND ${IL_ATTRIB_CLANG} -target bpf -O2 -g -Wall -I${CMAKE_SOURCE_DIR}/attrib
          -I/usr/include/${IL_FLOOR_MULTIARCH} -c ${CMAKE_CURRENT_LIST_DIR}/bpf-floor.bpf.c
          -o ${IL_FLOOR_BPF_OBJ}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/bpf-floor.bpf.c ${CMAKE_SOURCE_DIR}/attrib/il_kev.h
  COMMENT "BPF bpf-floor.bpf.o"
  VERBATIM)
add_custom_command(
  OUTPUT ${IL_FLOOR_SKEL}
  COMMAND ${IL_ATTRIB_BPFTOOL} gen skeleton ${IL_FLOOR_BPF_OBJ} name bpf_floor_bpf > ${IL_FLOOR_SKEL}
  DEPENDS ${IL_FLOOR_BPF_OBJ}
  COMMENT "BPF skeleton bpf-floor.skel.h")
add_custom_target(bpf_floor_skel DEPENDS ${IL_FLOOR_SKEL})
add_executable(bpf-floor ${CMAKE_CURRENT_LIST_DIR}/bpf-floor.c ${IL_FLOOR_SKEL})
add_dependencies(bpf-floor bpf_floor_skel)
target_include_directories(bpf-floor PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(bpf-floor PRIVATE PkgConfig::FLOOR_LIBBPF PkgConfig::CJSON)
set_target_properties(bpf-floor PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
