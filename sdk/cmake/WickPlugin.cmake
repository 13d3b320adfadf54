# WickPlugin.cmake - wick_add_plugin(): build a wick plugin as a MODULE library.
#
#   wick_add_plugin(myops SOURCES myops.cpp [OPS myops.ops ...] [KIND plugin|backend] [OUTPUT_DIRECTORY dir])
#
# OPS: the plugin's operator definitions (format: sdk/opgen/wick_opgen.py).
# The build generates `myops_ops.h` (the typed C++ API and the declaration
# of `myops_catalog()`) on the plugin's include path, and compiles the
# definition table and the API into the plugin; its init registers them
# with `registrar.define(myops_catalog())`.
#
# The module links to Wick::wick, exports only its entry point (hidden
# visibility), and finds libwick next to the install's lib directory. Used
# in-tree for the bundled backends and plugins, and by installed packages.
function(wick_add_plugin name)
  cmake_parse_arguments(ARG "" "KIND;OUTPUT_DIRECTORY" "SOURCES;OPS" ${ARGN})
  if(NOT ARG_KIND)
    set(ARG_KIND plugin)
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE Wick::wick)
  if(ARG_OPS)
    set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_ops)
    wick_generate_ops(${name} OPS ${ARG_OPS} SOURCE_DIR ${gen_dir} INCLUDE_DIR ${gen_dir} DECLARE_CATALOG
                      OUTPUT_SOURCES generated)
    target_sources(${name} PRIVATE ${generated})
    target_include_directories(${name} PRIVATE ${gen_dir})
  endif()
  set_target_properties(${name} PROPERTIES
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    PREFIX "lib" OUTPUT_NAME "wick_${name}"
    BUILD_RPATH "$ORIGIN/../.." INSTALL_RPATH "$ORIGIN/../..")
  # The loader refuses plugins other users could write (README, "Trust"):
  # whatever the umask, the file and its directory are writable by the owner only.
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND chmod go-w $<TARGET_FILE:${name}> $<TARGET_FILE_DIR:${name}> VERBATIM)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED WICK_BACKEND_DIR)  # in-tree: mirror the install layout
    if(ARG_KIND STREQUAL "backend")
      set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${WICK_BACKEND_DIR})
    else()
      set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${WICK_PLUGIN_DIR})
    endif()
  endif()
endfunction()
