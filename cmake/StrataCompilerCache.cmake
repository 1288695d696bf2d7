# Uses ccache for C++ (and CUDA) compilation when it is installed.
find_program(STRATA_CCACHE ccache)
if(STRATA_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${STRATA_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${STRATA_CCACHE})
endif()
