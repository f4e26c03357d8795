# The VM test: boots Debian 6.1 and 6.12 kernels under qemu (TCG) and runs
# the uinput/evdev, DRM page-flip and fair-server tests against the real
# kernel code (tests/vm/run). Exit 77 (skip) when qemu or a kernel cannot
# be had here. With IL_STATIC=ON the static harness is copied in and the
# end-to-end runs below are added.
set(IL_VM_E2E "inputlat run --input uinput --present drm --events 50"
    CACHE STRING "End-to-end command run inside the VM (IL_STATIC=ON builds only)")
set(IL_VM_FAIR_SERVER "inputlat run --input uinput --present drm --policy rt-fair-server --events 20"
    CACHE STRING "Fair-server tuning run inside the 6.12 VM (IL_STATIC=ON builds only)")

set(_il_vm_args --build ${CMAKE_BINARY_DIR}/vm)
if(IL_STATIC AND TARGET inputlat)
  list(APPEND _il_vm_args --with ${CMAKE_BINARY_DIR} --run-on 6.12 "${IL_VM_FAIR_SERVER}"
       -- "${IL_VM_E2E}")
endif()
add_test(NAME vm COMMAND ${CMAKE_SOURCE_DIR}/tests/vm/run ${_il_vm_args})
set_tests_properties(vm PROPERTIES LABELS vm TIMEOUT 900 SKIP_RETURN_CODE 77
                     RUN_SERIAL TRUE)
