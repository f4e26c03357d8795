# bench/hop-floor and bench/overhead: the floor of one hop, and the harness's
# own per-hop cost measured against it (issue 9).
add_library(il_floor STATIC ${CMAKE_CURRENT_LIST_DIR}/il_floor.c)
target_include_directories(il_floor PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(il_floor PUBLIC il_wire il_common PkgConfig::UV)

add_executable(hop-floor ${CMAKE_CURRENT_LIST_DIR}/hop-floor.c)
target_link_libraries(hop-floor PRIVATE il_bench il_floor)
set_target_properties(hop-floor PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)

add_executable(overhead ${CMAKE_CURRENT_LIST_DIR}/overhead.c)
target_link_libraries(overhead PRIVATE il_bench il_floor PkgConfig::CJSON)
set_target_properties(overhead PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
add_dependencies(overhead inputlat)

# Instructions per hop under callgrind (see hop-cost.c).
add_executable(hop-cost ${CMAKE_CURRENT_LIST_DIR}/hop-cost.c)
target_link_libraries(hop-cost PRIVATE il_bench il_wire)
set_target_properties(hop-cost PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)

# Peak RSS per process against the number of traced events (issue 17).
add_executable(rss-events ${CMAKE_CURRENT_LIST_DIR}/rss-events.c)
target_link_libraries(rss-events PRIVATE il_bench il_common PkgConfig::CJSON)
set_target_properties(rss-events PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
add_dependencies(rss-events inputlat)
