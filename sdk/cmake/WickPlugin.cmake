# WickPlugin.cmake - wick_add_plugin(): build a wick plugin as a MODULE library.
#
#   wick_add_plugin(myops SOURCES myops.cpp [KIND plugin|backend] [OUTPUT_DIRECTORY dir])
#
# The module links to Wick::wick, exports only its entry point (hidden
# visibility), and finds libwick next to the install's lib directory. Used
# in-tree for the bundled backends and plugins, and by installed packages.
function(wick_add_plugin name)
  cmake_parse_arguments(ARG "" "KIND;OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  if(NOT ARG_KIND)
    set(ARG_KIND plugin)
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE Wick::wick)
  # GCC gives static locals of inline functions and static members of
  # templates with default visibility (the standard library's included)
  # STB_GNU_UNIQUE binding, and glibc never unloads a library that defines
  # one a lookup bound: unloading would leave the old build mapped (Note
  # [Unloading unmaps] in the loader). Plain weak symbols serve a plugin as well.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${name} PRIVATE -fno-gnu-unique)
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
