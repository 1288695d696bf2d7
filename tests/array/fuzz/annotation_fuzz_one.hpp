#pragma once
// What the annotation fuzzer does with one input, shared by the libFuzzer target and the corpus
// test that CI runs with the normal build.

#include <stdexcept>
#include <string_view>

namespace strata::array::fuzz {

// A broken property of the parser or of evaluation (not a bad annotation).
class FuzzFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// What became of an input.
enum class Outcome { parsed, rejected };

// Parses `text`. A bad annotation must throw AnnotationError with a place inside the text; a good
// one must print canonically and parse back to itself, and its access regions on a fixed launch
// must lie within its arrays. Throws FuzzFailure when one of these breaks; any other exception
// than AnnotationError escapes (the fuzzer reports it as a crash).
Outcome fuzz_one(std::string_view text);

}  // namespace strata::array::fuzz
