# The VM test: boots Debian 6.1 and 6.12 kernels under qemu (TCG) and runs
# the uinput/evdev, DRM page-flip and fair-server tests against the real
# kernel code (tests/vm/run). Exit 77 (skip) when qemu or a kernel cannot
# be had here. When the harness is built, it is copied in (with its shared
# libraries, so no static build is needed) and run end to end.
# tests/vm/e2e.sh N CMD runs CMD --events N --json and passes when all N
# completed; --fair-server US also tunes the fair server to US per second
# and checks the kernel value during the run and its restore afterwards.
set(IL_VM_E2E "sh /tests/e2e.sh 50 inputlat run --input uinput --present drm --quiet"
    CACHE STRING "End-to-end command run inside the VM on every kernel (empty: none)")
# The RT run does no per-hop CPU work: under TCG the busy-loop calibration
# swings (1100..1860 loops/us seen) and FIFO compositor threads doing
# "150 us" of work then starve the lower-priority hops; the point here is
# the tuning path, and TCG timings are functional evidence only.
set(IL_VM_FAIR_SERVER
    "sh /tests/e2e.sh 20 --fair-server 100000 inputlat run --input uinput --present drm --work none --quiet"
    CACHE STRING "Fair-server tuning run inside the 6.12 VM (empty: none)")

# A policy that changes a knob on every kernel (sched_rt_runtime_us to -1),
# so that putting knobs back is checked on both (e2e.sh compares every knob
# before and after each run).
set(IL_VM_E2E_KNOBS "sh /tests/e2e.sh 20 inputlat run --input uinput --present drm --policy rt --work none --quiet"
    CACHE STRING "End-to-end run inside the VM that changes a knob (empty: none)")

# The case of test_sched_refusal this machine skips: RLIMIT_RTPRIO and
# RLIMIT_NICE granting fifo and a negative nice without CAP_SYS_NICE needs
# raising hard limits (CAP_SYS_RESOURCE), which the VM's root has.
set(IL_VM_REFUSAL "sh /tests/cmocka_one.sh test_sched_refusal test_refusal_rlimits_grant"
    CACHE STRING "test_sched_refusal's rlimit case inside the VM on every kernel (empty: none)")
# Which knob holds RT threads back, on the kernels this host is not: 6.1
# without RT groups or a fair server, 6.12 with the fair server only.
set(IL_VM_RT_THROTTLE
    "sh /tests/cmocka_one.sh test_rt_throttle test_rt_throttle_live && sh /tests/rt_throttled.sh"
    CACHE STRING "test_rt_throttle's live case and an rt-throttled run inside the VM on every kernel (empty: none)")

set(_il_vm_args --build ${CMAKE_BINARY_DIR}/vm)
if(TARGET inputlat AND (IL_VM_E2E OR IL_VM_E2E_KNOBS OR IL_VM_FAIR_SERVER OR IL_VM_REFUSAL
                        OR IL_VM_RT_THROTTLE))
  list(APPEND _il_vm_args --with ${CMAKE_BINARY_DIR})
  if(IL_VM_REFUSAL AND TARGET test_sched_refusal)
    list(APPEND _il_vm_args --with ${CMAKE_BINARY_DIR}/tests/test_sched_refusal)
  endif()
  if(IL_VM_RT_THROTTLE AND TARGET test_rt_throttle)
    list(APPEND _il_vm_args --with ${CMAKE_BINARY_DIR}/tests/test_rt_throttle)
  endif()
  if(IL_VM_FAIR_SERVER)
    list(APPEND _il_vm_args --run-on 6.12 "${IL_VM_FAIR_SERVER}")
  endif()
  if(IL_VM_E2E OR IL_VM_E2E_KNOBS OR IL_VM_REFUSAL OR IL_VM_RT_THROTTLE)
    list(APPEND _il_vm_args --)
  endif()
  if(IL_VM_E2E)
    list(APPEND _il_vm_args "${IL_VM_E2E}")
  endif()
  if(IL_VM_E2E_KNOBS)
    list(APPEND _il_vm_args "${IL_VM_E2E_KNOBS}")
  endif()
  if(IL_VM_REFUSAL AND TARGET test_sched_refusal)
    list(APPEND _il_vm_args "${IL_VM_REFUSAL}")
  endif()
  if(IL_VM_RT_THROTTLE AND TARGET test_rt_throttle)
    list(APPEND _il_vm_args "${IL_VM_RT_THROTTLE}")
  endif()
endif()
add_test(NAME vm COMMAND ${CMAKE_SOURCE_DIR}/tests/vm/run ${_il_vm_args})
# "beside": scripts/test runs it next to the plain pass (qemu times nothing
# here); "nosan": its programs run inside qemu, where no sanitizer applies.
set_tests_properties(vm PROPERTIES LABELS "vm;beside;nosan" TIMEOUT 900 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
