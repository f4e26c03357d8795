# libFuzzer targets (issue 8): fuzz_frame, fuzz_policy, fuzz_evdev, fuzz_cli,
# fuzz_report, fuzz_evemu, fuzz_evemu_round, fuzz_state, and the kernel's
# texts: fuzz_cpustat, fuzz_cpu_bandwidth, fuzz_tracefs, fuzz_sysinfo,
# fuzz_input_attr.
# Included by the top-level CMakeLists.txt when IL_FUZZ is ON, after every
# subdirectory, so that the libraries exist. Configure with
#   CC=clang cmake -S . -B build-fuzz -DIL_FUZZ=ON
# and run them with scripts/fuzz SECONDS. The target logic lives in
# il_fuzz_<name>() so tests/test_fuzz_regress.c can replay the corpora
# without libFuzzer; IL_FUZZ turns on each file's LLVMFuzzerTestOneInput.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "IL_FUZZ needs clang's libFuzzer: configure with CC=clang "
                      "(Debian: apt-get install clang libclang-rt-14-dev)")
endif()
if(IL_SANITIZE MATCHES "thread|memory")
  message(FATAL_ERROR "IL_FUZZ runs under ASan+UBSan; drop IL_SANITIZE=${IL_SANITIZE}")
endif()

set(IL_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(IL_FUZZ_SAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)

# The whole tree of a fuzz build runs under ASan+UBSan, so that a bug the
# fuzzer reaches in any library is reported, and so that `cmake --build`
# of everything still links (a sanitized library needs a sanitized
# program). IL_SANITIZE already did it when it was given.
function(il_fuzz_sanitize_dir dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      target_compile_options(${t} PRIVATE ${IL_FUZZ_SAN_FLAGS})
      if(NOT type STREQUAL "STATIC_LIBRARY" AND NOT type STREQUAL "OBJECT_LIBRARY")
        target_link_options(${t} PRIVATE -fsanitize=address,undefined)
      endif()
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    il_fuzz_sanitize_dir(${d})
  endforeach()
endfunction()
if(NOT IL_SANITIZE)
  il_fuzz_sanitize_dir(${CMAKE_SOURCE_DIR})
endif()

# Coverage feedback for the code under test: libFuzzer steers by it.
foreach(lib il_tracefs_obj il_common il_wire il_policy il_input il_present il_attrib il_harness)
  if(TARGET ${lib})
    target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endforeach()

foreach(name frame policy evdev cli report evemu evemu_round state
             cpustat cpu_bandwidth tracefs sysinfo input_attr)
  add_executable(fuzz_${name} ${IL_FUZZ_DIR}/fuzz_${name}.c)
  target_include_directories(fuzz_${name} PRIVATE ${IL_FUZZ_DIR})
  target_compile_definitions(fuzz_${name} PRIVATE IL_FUZZ=1)
  target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer ${IL_FUZZ_SAN_FLAGS})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_${name} PRIVATE il_harness)
  set_target_properties(fuzz_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
endforeach()
add_custom_target(fuzz DEPENDS fuzz_frame fuzz_policy fuzz_evdev fuzz_cli fuzz_report fuzz_evemu
                                fuzz_evemu_round fuzz_state fuzz_cpustat fuzz_cpu_bandwidth
                                fuzz_tracefs fuzz_sysinfo fuzz_input_attr)
