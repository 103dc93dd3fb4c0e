# bcastgen-config.cmake, for find_package(bcastgen). It gives
#
#   bcastgen_add_kernels(TARGET SPEC...)
#
# which generates each spec NAME.lua into NAME.c and NAME.h in the
# current binary directory and adds them to TARGET, with the runtime
# headers on its include path. A stamp file records the last run;
# bcastgen rewrites NAME.c and NAME.h only when their content changes, so
# what is built from them is rebuilt only then.

get_filename_component(_bcastgen_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(BCASTGEN_EXECUTABLE "${_bcastgen_prefix}/bin/bcastgen")
set(BCASTGEN_INCLUDE_DIR "${_bcastgen_prefix}/include/bcastgen")

function(bcastgen_add_kernels target)
  foreach(spec IN LISTS ARGN)
    get_filename_component(spec_path "${spec}" ABSOLUTE)
    get_filename_component(name "${spec}" NAME_WE)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}")
    add_custom_command(
      OUTPUT "${out}.bcastgen-stamp"
      BYPRODUCTS "${out}.c" "${out}.h"
      COMMAND "${BCASTGEN_EXECUTABLE}" "${spec_path}" -o "${out}.c"
              -M "${out}.bcastgen.d" -MT "${out}.bcastgen-stamp"
      COMMAND "${CMAKE_COMMAND}" -E touch "${out}.bcastgen-stamp"
      DEPENDS "${spec_path}" "${BCASTGEN_EXECUTABLE}"
      DEPFILE "${out}.bcastgen.d"
      COMMENT "bcastgen ${spec}"
      VERBATIM)
    target_sources(${target} PRIVATE "${out}.c" "${out}.h" "${out}.bcastgen-stamp")
  endforeach()
  target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_BINARY_DIR}"
                             "${BCASTGEN_INCLUDE_DIR}")
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -ffp-contract=off)
  endif()
endfunction()
