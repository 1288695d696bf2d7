# STRATA_SANITIZE: "" (none), "address,undefined" or "thread"; applied to every target.
set(STRATA_SANITIZE "" CACHE STRING "Sanitizers to build with: address,undefined | thread")
if(STRATA_SANITIZE)
  if(STRATA_SANITIZE MATCHES "thread" AND STRATA_SANITIZE MATCHES "address")
    message(FATAL_ERROR "STRATA_SANITIZE: thread cannot be combined with address")
  endif()
  add_compile_options(-fsanitize=${STRATA_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${STRATA_SANITIZE})
endif()
