# One BPF object and its libbpf skeleton, the same way for every room that
# has one (spin/, attrib/, bench/):
#
#   il_bpf_skeleton(TARGET SOURCE SKEL_NAME CLANG BPFTOOL
#                   [INCLUDE dir...] [DEPENDS file...])
#
# builds <dir of the build>/<base>.bpf.o from SOURCE (<base>.bpf.c) with
# clang's BPF target (-mcpu=v3: atomic fetch-and-add, which the per-CPU
# rings of attrib/il_kring.bpf.h claim slots with; kernel 5.12 and later)
# and its own flags (never the sanitizer or host warning
# flags of the rest of the tree), generates <base>.skel.h with `bpftool gen
# skeleton ... name SKEL_NAME`, adds the custom target TARGET for it and
# sets TARGET_SKEL in the caller to the header's path.
function(il_bpf_skeleton target src skel_name clang bpftool)
  cmake_parse_arguments(A "" "" "INCLUDE;DEPENDS" ${ARGN})
  get_filename_component(file ${src} NAME)
  string(REGEX REPLACE "\\.bpf\\.c$" "" base ${file})
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/${base}.bpf.o)
  set(skel ${CMAKE_CURRENT_BINARY_DIR}/${base}.skel.h)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-multiarch
                  OUTPUT_VARIABLE multiarch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(incs "")
  foreach(d ${A_INCLUDE})
    list(APPEND incs -I${d})
  endforeach()
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${clang} -target bpf -mcpu=v3 -O2 -g -Wall ${incs} -I/usr/include/${multiarch} -c ${src} -o ${obj}
    DEPENDS ${src} ${A_DEPENDS}
    COMMENT "BPF ${base}.bpf.o"
    VERBATIM)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${bpftool} gen skeleton ${obj} name ${skel_name} > ${skel}
    DEPENDS ${obj}
    COMMENT "BPF skeleton ${base}.skel.h")
  add_custom_target(${target} DEPENDS ${skel})
  set(${target}_SKEL ${skel} PARENT_SCOPE)
endfunction()
