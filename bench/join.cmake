# Hash join against std::unordered_multimap (issue 41 §2); included from bench/CMakeLists.txt.
add_executable(bench_join join.cpp)
target_link_libraries(bench_join PRIVATE strata::primitives strata::device fmt::fmt)
strata_target_warnings(bench_join)
