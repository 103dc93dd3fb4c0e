# bcastgen-config.cmake, for find_package(bcastgen). It gives
#
#   bcastgen_add_kernels(TARGET SPEC... [OPTIONS OPTION...])
#
# which generates each spec NAME.lua into NAME.c and NAME.h in the
# current binary directory (only the last extension goes: layer.v2.lua
# gives layer.v2.c) and adds them to TARGET, with the runtime headers on
# its include path. OPTIONS are more options for bcastgen, for example
# --templates DIR (a relative path is from the current source directory).
# A stamp file records the last run; bcastgen rewrites NAME.c and NAME.h
# only when their content changes, so what is built from them is rebuilt
# only then. The spec, the templates it read and the bcastgen binary are
# tracked; a deleted NAME.c or NAME.h is generated again. Targets that
# share a spec share one run of bcastgen. In a project without C enabled,
# the kernels are compiled as C++. No compiler flag is added: the kernels
# keep a*b + c from being fused by themselves (see the README).
#
# Needs CMake 3.20 (depfiles with the Makefile generators).

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "bcastgen needs CMake 3.20 or later; this is CMake ${CMAKE_VERSION}")
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

get_filename_component(_bcastgen_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(BCASTGEN_EXECUTABLE "${_bcastgen_prefix}/bin/bcastgen")
set(BCASTGEN_INCLUDE_DIR "${_bcastgen_prefix}/include/bcastgen")

# _bcastgen_rule(SPEC_PATH OUT OPTIONS VAR): the rule that generates
# OUT.c and OUT.h from SPEC_PATH with OPTIONS, made once for each OUT:
# VAR is set to the custom target that runs it.
function(_bcastgen_rule spec_path out options var)
  string(JOIN " " key "${spec_path}" ${options})
  get_property(rule GLOBAL PROPERTY "_bcastgen_rule ${out}")
  if(rule)
    get_property(known GLOBAL PROPERTY "_bcastgen_key ${out}")
    if(NOT known STREQUAL key)
      message(FATAL_ERROR "bcastgen_add_kernels: ${out}.c comes from "
        "'bcastgen ${known}' already, and cannot come from 'bcastgen ${key}' "
        "too: the specs of one directory need different names")
    endif()
    set(${var} "${rule}" PARENT_SCOPE)
    return()
  endif()

  get_filename_component(name "${out}" NAME)
  file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${spec_path}")
  string(MAKE_C_IDENTIFIER "bcastgen_${name}" rule)
  if(TARGET ${rule})
    string(MD5 hash "${out}")
    string(SUBSTRING "${hash}" 0 8 hash)
    set(rule "${rule}_${hash}")
  endif()
  set(run "${BCASTGEN_EXECUTABLE}" ${options} "${spec_path}" -o "${out}.c"
          -M "${out}.bcastgen.d" -MT "${out}.bcastgen-stamp")
  if(CMAKE_GENERATOR MATCHES "Ninja")
    # Ninja makes a missing byproduct again by running its rule.
    add_custom_command(
      OUTPUT "${out}.bcastgen-stamp"
      BYPRODUCTS "${out}.c" "${out}.h"
      COMMAND ${run}
      COMMAND "${CMAKE_COMMAND}" -E touch "${out}.bcastgen-stamp"
      DEPENDS "${spec_path}" "${BCASTGEN_EXECUTABLE}"
      DEPFILE "${out}.bcastgen.d"
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
      COMMENT "bcastgen ${shown}"
      VERBATIM)
  else()
    # Make has no rule for a byproduct: the .c and .h get rules that do
    # nothing, so that the stamp, which depends on them, is made again
    # when one is missing. Each has its own rule: one for both would
    # touch the .h whenever the .c changes.
    add_custom_command(OUTPUT "${out}.c" COMMAND "${CMAKE_COMMAND}" -E true COMMENT "" VERBATIM)
    add_custom_command(OUTPUT "${out}.h" COMMAND "${CMAKE_COMMAND}" -E true COMMENT "" VERBATIM)
    add_custom_command(
      OUTPUT "${out}.bcastgen-stamp"
      COMMAND ${run}
      COMMAND "${CMAKE_COMMAND}" -E touch "${out}.bcastgen-stamp"
      DEPENDS "${spec_path}" "${BCASTGEN_EXECUTABLE}" "${out}.c" "${out}.h"
      DEPFILE "${out}.bcastgen.d"
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
      COMMENT "bcastgen ${shown}"
      VERBATIM)
  endif()
  add_custom_target(${rule} DEPENDS "${out}.bcastgen-stamp")
  set_property(GLOBAL PROPERTY "_bcastgen_key ${out}" "${key}")
  set_property(GLOBAL PROPERTY "_bcastgen_rule ${out}" "${rule}")
  set(${var} "${rule}" PARENT_SCOPE)
endfunction()

# bcastgen_add_kernels(TARGET SPEC... [OPTIONS OPTION...]): generate
# each SPEC into the current binary directory and add its kernels to
# TARGET.
function(bcastgen_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 _bc "" "" "OPTIONS")
  if(NOT _bc_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "bcastgen_add_kernels(${target}): no spec file given")
  endif()
  # Paths in the options are from the current source directory; the
  # templates' is made absolute, so that the depfile names them so.
  set(options)
  set(next_is_dir FALSE)
  foreach(opt IN LISTS _bc_OPTIONS)
    if(next_is_dir)
      get_filename_component(opt "${opt}" ABSOLUTE)
      set(next_is_dir FALSE)
    elseif(opt STREQUAL "--templates")
      set(next_is_dir TRUE)
    elseif(opt MATCHES "^--templates=(.*)$")
      get_filename_component(dir "${CMAKE_MATCH_1}" ABSOLUTE)
      set(opt "--templates=${dir}")
    endif()
    list(APPEND options "${opt}")
  endforeach()
  # Without C, the kernels are compiled as C++, which they also are.
  # Without either, there is nothing to compile them with.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages AND NOT "CXX" IN_LIST languages)
    message(FATAL_ERROR "bcastgen_add_kernels(${target}): the kernels are C "
      "or C++, and neither language is enabled: project(NAME C) or enable_language(C)")
  endif()
  foreach(spec IN LISTS _bc_UNPARSED_ARGUMENTS)
    get_filename_component(spec_path "${spec}" ABSOLUTE)
    get_filename_component(name "${spec}" NAME_WLE)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}")
    _bcastgen_rule("${spec_path}" "${out}" "${options}" rule)
    target_sources(${target} PRIVATE "${out}.c" "${out}.h")
    add_dependencies(${target} ${rule})
    if(NOT "C" IN_LIST languages)
      set_source_files_properties("${out}.c" PROPERTIES LANGUAGE CXX)
    endif()
  endforeach()
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_BINARY_DIR}"
                             "${BCASTGEN_INCLUDE_DIR}")
endfunction()

cmake_policy(POP)
