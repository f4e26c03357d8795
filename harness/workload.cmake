# The workload child: background load and the canary, never in the hop
# chain. il_workload.c has its own main, so these files are not part of
# inputlat itself.
if(NOT TARGET il-workload)
  add_library(il_workload_mods STATIC ${CMAKE_CURRENT_LIST_DIR}/il_load.c
                                      ${CMAKE_CURRENT_LIST_DIR}/il_canary.c)
  target_include_directories(il_workload_mods PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(il_workload_mods PUBLIC il_common PkgConfig::CJSON Threads::Threads)

  add_executable(il-workload ${CMAKE_CURRENT_LIST_DIR}/il_workload.c)
  target_link_libraries(il-workload PRIVATE il_workload_mods il_child il_policy il_common PkgConfig::UV)
  set_target_properties(il-workload PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  install(TARGETS il-workload DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/inputlat)
endif()
