# strata_target_warnings(target): the warning set every Strata target compiles with.
function(strata_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wnull-dereference)
  # GCC's flow analysis of sanitizer-instrumented code reports uninitialized reads that are not
  # there (e.g. inside libstdc++'s std::regex at -O1); builds without sanitizers keep the warning.
  if(STRATA_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
  if(STRATA_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
option(STRATA_WARNINGS_AS_ERRORS "Treat warnings as errors" OFF)
