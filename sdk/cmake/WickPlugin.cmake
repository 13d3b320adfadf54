# WickPlugin.cmake - wick_add_plugin(): build a wick plugin as a MODULE library.
#
#   wick_add_plugin(myops SOURCES myops.cpp [OPS myops.ops ... [OPS_NAME name]] [KIND plugin|backend]
#                   [OUTPUT_DIRECTORY dir])
#
# OPS: the plugin's operator definitions (format: sdk/opgen/wick_opgen.py).
# The build generates `myops_ops.h` (the typed C++ API and the declaration
# of `myops_catalog()`) and `myops_meta.h` (the meta functions to write) on
# the plugin's include path, and compiles the definition table and the API
# into the plugin; its init registers them with
# `registrar.define(myops_catalog())`. OPS_NAME names those files and the
# function instead of the target's name.
#
# The module links to Wick::wick, exports only its entry point (hidden
# visibility), and finds libwick next to the install's lib directory. Used
# in-tree for the bundled backends and plugins, and by installed packages.
#
# The loader refuses a plugin whose ABI fingerprint (wick/version.h: the
# compiler family and major version, the standard library ABI, the C++
# standard) differs from the host's. So that this shows when a plugin is
# configured rather than when it is loaded, wick_add_plugin stops the
# configure when the project's C++ compiler is not the SDK's (family and
# major version), and compiles the plugin as the SDK's C++ standard,
# stopping when the project or the target asks for another. The SDK's are
# WICK_SDK_CXX_COMPILER_ID, WICK_SDK_CXX_COMPILER_MAJOR and
# WICK_SDK_CXX_STANDARD (set by WickConfig.cmake, or in-tree).

# Fails the configure when target `name` was given a C++ standard other than
# the SDK's after wick_add_plugin (deferred to the end of its directory).
function(_wick_check_plugin_standard name)
  get_target_property(standard ${name} CXX_STANDARD)
  get_target_property(features ${name} COMPILE_FEATURES)
  foreach(feature IN LISTS features)
    if(feature MATCHES "^cxx_std_([0-9]+)$" AND CMAKE_MATCH_1 GREATER WICK_SDK_CXX_STANDARD)
      set(standard ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(NOT standard EQUAL WICK_SDK_CXX_STANDARD)
    message(FATAL_ERROR "wick_add_plugin(${name}): the plugin is set to C++${standard} after wick_add_plugin, but "
      "wick plugins are compiled as C++${WICK_SDK_CXX_STANDARD}, the SDK's standard: the loader would refuse it "
      "(its ABI fingerprint names the standard). Remove the setting.")
  endif()
endfunction()

function(wick_add_plugin name)
  cmake_parse_arguments(ARG "" "KIND;OUTPUT_DIRECTORY;OPS_NAME" "SOURCES;OPS" ${ARGN})
  if(NOT ARG_KIND)
    set(ARG_KIND plugin)
  endif()
  string(REGEX MATCH "^[0-9]+" compiler_major "${CMAKE_CXX_COMPILER_VERSION}")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL WICK_SDK_CXX_COMPILER_ID OR NOT compiler_major STREQUAL WICK_SDK_CXX_COMPILER_MAJOR)
    message(FATAL_ERROR "wick_add_plugin(${name}): this project compiles C++ with ${CMAKE_CXX_COMPILER_ID} "
      "${CMAKE_CXX_COMPILER_VERSION} (${CMAKE_CXX_COMPILER}), but the wick SDK was built with "
      "${WICK_SDK_CXX_COMPILER_ID} ${WICK_SDK_CXX_COMPILER_MAJOR} (${WICK_SDK_CXX_COMPILER}), and the loader "
      "refuses plugins whose ABI fingerprint (compiler family and major version) differs from the host's. "
      "Configure a new build directory with -DCMAKE_CXX_COMPILER=${WICK_SDK_CXX_COMPILER} (or CXX set to it).")
  endif()
  if(DEFINED CMAKE_CXX_STANDARD AND NOT CMAKE_CXX_STANDARD EQUAL WICK_SDK_CXX_STANDARD)
    message(FATAL_ERROR "wick_add_plugin(${name}): CMAKE_CXX_STANDARD is ${CMAKE_CXX_STANDARD}, but wick plugins "
      "are compiled as C++${WICK_SDK_CXX_STANDARD}, the SDK's standard: the loader would refuse the plugin (its ABI "
      "fingerprint names the standard). Set CMAKE_CXX_STANDARD to ${WICK_SDK_CXX_STANDARD}, or leave it unset: "
      "wick_add_plugin sets the plugin's standard itself.")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES CXX_STANDARD ${WICK_SDK_CXX_STANDARD} CXX_STANDARD_REQUIRED ON)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _wick_check_plugin_standard [[${name}]])")
  target_link_libraries(${name} PRIVATE Wick::wick)
  if(ARG_OPS)
    if(NOT ARG_OPS_NAME)
      set(ARG_OPS_NAME ${name})
    endif()
    set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_ops)
    wick_generate_ops(${ARG_OPS_NAME} OPS ${ARG_OPS} SOURCE_DIR ${gen_dir} INCLUDE_DIR ${gen_dir} DECLARE_CATALOG
                      OUTPUT_SOURCES generated)
    target_sources(${name} PRIVATE ${generated})
    target_include_directories(${name} PRIVATE ${gen_dir})
  endif()
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
  # The loader refuses plugins other users could write (sdk/docs/trust.md):
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
