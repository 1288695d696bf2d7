// The particle file format: parsing, writing, and errors that name the file and what is wrong.
#include "microscopy/particle_json.hpp"

#include <gtest/gtest.h>

#include "strata/allpairs/application.hpp"

namespace strata::apps::microscopy {
namespace {

const std::filesystem::path file = "/data/particles/particle_0007.json";

std::string error_of(std::string_view text) {
  try {
    parse_particle(text, file);
  } catch (const allpairs::InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ParticleJson, ParsesLocalizations) {
  const Particle p = parse_particle(
      R"({"localizations": [[1.5, -2, 3.25], [0, 1e1, 0.5]], "extra": "ignored"})", file);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_FLOAT_EQ(p[0].x, 1.5f);
  EXPECT_FLOAT_EQ(p[0].y, -2.0f);
  EXPECT_FLOAT_EQ(p[0].sigma, 3.25f);
  EXPECT_FLOAT_EQ(p[1].y, 10.0f);
  EXPECT_FLOAT_EQ(p[1].sigma, 0.5f);
}

TEST(ParticleJson, WritesWhatItParses) {
  const Particle p = {{1.25f, -3.5f, 2.0f}, {-40.125f, 17.0f, 4.5f}, {0.001f, 0, 1}};
  const std::string text = particle_to_json(p);
  const Particle back = parse_particle(text, file);
  ASSERT_EQ(back.size(), p.size());
  for (std::size_t k = 0; k < p.size(); ++k) {
    EXPECT_FLOAT_EQ(back[k].x, p[k].x);
    EXPECT_FLOAT_EQ(back[k].y, p[k].y);
    EXPECT_FLOAT_EQ(back[k].sigma, p[k].sigma);
  }
  // One localization per line.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
}

TEST(ParticleJson, MalformedJsonNamesTheFileAndLine) {
  const std::string message = error_of("{\"localizations\": [\n  [1, 2, 3],\n  [4, 5, 6\n]}");
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("malformed JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("line 4"), std::string::npos) << message;
}

TEST(ParticleJson, TruncatedFileIsMalformed) {
  const std::string message = error_of("{\"localizations\": [[1, 2, 3], [4, 5");
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("malformed JSON"), std::string::npos) << message;
}

TEST(ParticleJson, MissingOrWrongFieldsAreNamed) {
  EXPECT_NE(error_of(R"({"points": []})").find("missing field \"localizations\""),
            std::string::npos);
  EXPECT_NE(error_of(R"([1, 2, 3])").find("expected an object"), std::string::npos);
  EXPECT_NE(error_of(R"({"localizations": 5})").find("not an array"), std::string::npos);
  EXPECT_NE(error_of(R"({"localizations": []})").find("no localizations"), std::string::npos);
}

TEST(ParticleJson, BadEntriesNameTheLocalization) {
  const std::string wrong_arity = error_of(R"({"localizations": [[1, 2, 3], [1, 2]]})");
  EXPECT_NE(wrong_arity.find("localization 1: expected [x, y, sigma]"), std::string::npos)
      << wrong_arity;
  const std::string not_a_number = error_of(R"({"localizations": [[1, "2", 3]]})");
  EXPECT_NE(not_a_number.find("localization 0: y is not a number"), std::string::npos)
      << not_a_number;
  const std::string null_sigma = error_of(R"({"localizations": [[1, 2, 3], [1, 2, null]]})");
  EXPECT_NE(null_sigma.find("localization 1: sigma is not a number"), std::string::npos)
      << null_sigma;
  const std::string negative = error_of(R"({"localizations": [[1, 2, -0.5]]})");
  EXPECT_NE(negative.find("sigma = -0.5 is not positive"), std::string::npos) << negative;
  const std::string huge = error_of(R"({"localizations": [[1e300, 2, 1]]})");
  EXPECT_NE(huge.find("x = 1e+300 is out of range"), std::string::npos) << huge;
  for (const std::string& message : {wrong_arity, not_a_number, null_sigma, negative, huge})
    EXPECT_EQ(message.rfind(file.string(), 0), 0u) << message;
}

}  // namespace
}  // namespace strata::apps::microscopy
