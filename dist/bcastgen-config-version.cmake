# bcastgen-config-version.cmake, for find_package(bcastgen VERSION):
# make install writes bcastgen's version below. Before 1.0 a version is
# compatible with a request of the same major and minor version, and not
# older (a request of 0 alone takes any 0.x); from 1.0, of the same
# major version, and not older. A range (find_package(
# bcastgen 0.2...0.4)) is compatible when the version is inside it.

set(PACKAGE_VERSION "@BCASTGEN_VERSION@")

if(PACKAGE_VERSION MATCHES "^([0-9]+)\\.([0-9]+)")
  set(_bcastgen_major "${CMAKE_MATCH_1}")
  set(_bcastgen_minor "${CMAKE_MATCH_2}")
else()
  set(_bcastgen_major "${PACKAGE_VERSION}")
  set(_bcastgen_minor 0)
endif()

if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_FIND_VERSION_RANGE)
  # A range: the lower end included; the upper one as the range says.
  if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MIN
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
         AND PACKAGE_VERSION VERSION_GREATER PACKAGE_FIND_VERSION_MAX)
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
         AND PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MAX))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
elseif(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL _bcastgen_major)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(_bcastgen_major EQUAL 0 AND PACKAGE_FIND_VERSION_COUNT GREATER 1
       AND NOT PACKAGE_FIND_VERSION_MINOR STREQUAL _bcastgen_minor)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()

if(PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
unset(_bcastgen_major)
unset(_bcastgen_minor)
