# strata_target_warnings(target): the warning set every Strata target compiles with.
function(strata_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wnull-dereference)
  if(STRATA_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
option(STRATA_WARNINGS_AS_ERRORS "Treat warnings as errors" OFF)
