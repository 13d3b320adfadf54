# WickOpgen.cmake - wick_generate_ops(): run the operator generator over .ops files.
#
#   wick_generate_ops(<name> OPS a.ops b.ops SOURCE_DIR dir INCLUDE_DIR dir
#                     [INCLUDE_PREFIX p] [CATALOG_NAMESPACE ns] [EXPORT macro]
#                     [METHODS] [DECLARE_CATALOG] [API_ONLY]
#                     [KERNEL_NAMESPACES KEY=ns ...] OUTPUT_SOURCES var)
#
# Writes <SOURCE_DIR>/<name>_catalog.cpp (the definition table, function
# <ns>::<name>_catalog()), <SOURCE_DIR>/<name>_ops.cpp and
# <INCLUDE_DIR>/<name>_ops.h (the typed API), <name>_meta.h (the meta
# functions' declarations) and <name>_kernels.h (each dispatch key's kernel
# declarations and their registration; KERNEL_NAMESPACES names the C++
# namespace of a key's kernels) at build time, and sets `var`
# to the two sources; the target <name>_ops_generated stands for the files.
# API_ONLY writes only the typed API (<name>_ops.h/.cpp): what an application
# that calls a plugin's operators compiles (the plugin registers them). Used for libwick's torch catalog and by
# wick_add_plugin(... OPS ...).
set(WICK_OPGEN_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../opgen/wick_opgen.py)
if(NOT EXISTS ${WICK_OPGEN_SCRIPT})  # the installed SDK: share/wick/opgen
  set(WICK_OPGEN_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../../../share/wick/opgen/wick_opgen.py)
endif()

function(wick_generate_ops name)
  cmake_parse_arguments(ARG "METHODS;DECLARE_CATALOG;API_ONLY" "SOURCE_DIR;INCLUDE_DIR;INCLUDE_PREFIX;CATALOG_NAMESPACE;EXPORT;OUTPUT_SOURCES"
                        "OPS;KERNEL_NAMESPACES" ${ARGN})
  # Relative definition files are the calling directory's (the generator runs in the build tree).
  set(ops)
  foreach(file IN LISTS ARG_OPS)
    cmake_path(ABSOLUTE_PATH file BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND ops ${file})
  endforeach()
  set(ARG_OPS ${ops})
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
  endif()
  if(ARG_API_ONLY)
    set(sources ${ARG_SOURCE_DIR}/${name}_ops.cpp)
    set(outputs ${sources} ${ARG_INCLUDE_DIR}/${name}_ops.h)
  else()
    set(sources ${ARG_SOURCE_DIR}/${name}_catalog.cpp ${ARG_SOURCE_DIR}/${name}_ops.cpp)
    set(outputs ${sources} ${ARG_INCLUDE_DIR}/${name}_ops.h ${ARG_INCLUDE_DIR}/${name}_meta.h
                ${ARG_INCLUDE_DIR}/${name}_kernels.h)
  endif()
  set(flags --name ${name} --out ${ARG_SOURCE_DIR} --include ${ARG_INCLUDE_DIR} --root ${CMAKE_SOURCE_DIR})
  if(ARG_INCLUDE_PREFIX)
    list(APPEND flags --include-prefix ${ARG_INCLUDE_PREFIX})
  endif()
  if(ARG_CATALOG_NAMESPACE)
    list(APPEND flags --catalog-namespace ${ARG_CATALOG_NAMESPACE})
  endif()
  if(ARG_EXPORT)
    list(APPEND flags --export ${ARG_EXPORT})
  endif()
  foreach(kernel_namespace IN LISTS ARG_KERNEL_NAMESPACES)
    list(APPEND flags --kernel-namespace ${kernel_namespace})
  endforeach()
  if(ARG_DECLARE_CATALOG)
    list(APPEND flags --declare-catalog)
  endif()
  if(ARG_API_ONLY)
    list(APPEND flags --api-only)
  endif()
  if(ARG_METHODS)
    list(APPEND flags --methods)
    list(APPEND outputs ${ARG_INCLUDE_DIR}/${name}_methods.inc)
  endif()
  add_custom_command(OUTPUT ${outputs}
    COMMAND ${Python3_EXECUTABLE} ${WICK_OPGEN_SCRIPT} ${flags} ${ARG_OPS}
    DEPENDS ${WICK_OPGEN_SCRIPT} ${ARG_OPS}
    COMMENT "wick_opgen: ${name} operators from ${ARG_OPS}" VERBATIM)
  # Targets whose sources include the headers depend on this one.
  add_custom_target(${name}_ops_generated DEPENDS ${outputs})
  set(${ARG_OUTPUT_SOURCES} ${sources} PARENT_SCOPE)
endfunction()
