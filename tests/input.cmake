# Input sources and presentation back ends: the host-side clean-error and
# replay tests. The real uinput/evdev/DRM paths run inside the VM (vm.cmake).
il_add_test(test_input SOURCES test_input.c LIBS il_input LABELS unit)
il_add_test(test_present SOURCES test_present.c LIBS il_present LABELS unit)
