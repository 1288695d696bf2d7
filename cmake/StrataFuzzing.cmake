# STRATA_FUZZ: build the libFuzzer targets (tests/array/fuzz). Needs clang; every target is then
# compiled with coverage for the fuzzer (-fsanitize=fuzzer-no-link). Use a build directory of its
# own, e.g. with STRATA_SANITIZE=address,undefined (docs/arrays.md).
option(STRATA_FUZZ "Build the libFuzzer targets (clang only)" OFF)
if(STRATA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "STRATA_FUZZ needs clang (CC=clang CXX=clang++ in a build directory of "
                        "its own); this build uses ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
