# js-engines: libmujs against duktape on the JS hog's script, the
# measurement behind the hog's engine. Built only where both engines'
# development packages are installed (duktape-dev is not a dependency of
# inputlat itself).
pkg_check_modules(DUKTAPE QUIET IMPORTED_TARGET duktape)
if(DUKTAPE_FOUND)
  add_executable(js-engines ${CMAKE_CURRENT_SOURCE_DIR}/js-engines.c)
  target_link_libraries(js-engines PRIVATE il_bench PkgConfig::MUJS PkgConfig::DUKTAPE m)
  set_target_properties(js-engines PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endif()
