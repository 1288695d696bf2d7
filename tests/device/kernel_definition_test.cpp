#include <gtest/gtest.h>

#include "conformance_kernels.hpp"
#include "strata/device/backends.hpp"
#include "strata/device/errors.hpp"

namespace strata::device {
namespace {

// The launch error's message, or "" when none was thrown.
std::string refusal(const KernelDefinition& kernel, const KernelArgs& args, std::string* param) {
  try {
    validate_arguments(kernel, args);
  } catch (const KernelLaunchError& e) {
    if (param != nullptr) *param = e.param();
    return e.what();
  }
  return "";
}

class KernelDefinitionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Device> cpu = make_cpu_device(default_block_runner());
  DeviceBuffer floats = cpu->allocate(64 * sizeof(float));
  KernelDefinition kernel = testing::vector_add_kernel();
};

TEST_F(KernelDefinitionTest, MatchingArgumentsAreAccepted) {
  EXPECT_EQ(refusal(kernel,
                    {KernelArg::value(std::uint32_t{64}), KernelArg::array<float>(floats),
                     KernelArg::array<float>(floats), KernelArg::array<float>(floats)},
                    nullptr),
            "");
}

TEST_F(KernelDefinitionTest, WrongCountIsRefusedListingTheSignature) {
  const auto message = refusal(
      kernel, {KernelArg::value(std::uint32_t{64}), KernelArg::array<float>(floats)}, nullptr);
  EXPECT_NE(message.find("kernel 'vector_add' takes 4 arguments"), std::string::npos) << message;
  EXPECT_NE(message.find("array f32 c"), std::string::npos) << message;
  EXPECT_NE(message.find("got 2"), std::string::npos) << message;
}

TEST_F(KernelDefinitionTest, WrongScalarTypeIsRefusedNamingTheParameter) {
  std::string param;
  const auto message = refusal(kernel,
                               {KernelArg::value(64.0), KernelArg::array<float>(floats),
                                KernelArg::array<float>(floats), KernelArg::array<float>(floats)},
                               &param);
  EXPECT_EQ(param, "n");
  EXPECT_NE(message.find("parameter 0 'n': expects element type u32, got f64"), std::string::npos)
      << message;
}

TEST_F(KernelDefinitionTest, ScalarForAnArrayIsRefusedNamingTheParameter) {
  std::string param;
  const auto message =
      refusal(kernel,
              {KernelArg::value(std::uint32_t{64}), KernelArg::array<float>(floats),
               KernelArg::value(1.0f), KernelArg::array<float>(floats)},
              &param);
  EXPECT_EQ(param, "b");
  EXPECT_NE(message.find("expects an array of f32, got a scalar f32"), std::string::npos)
      << message;
}

TEST_F(KernelDefinitionTest, WrongElementTypeOfAnArrayIsRefused) {
  std::string param;
  refusal(kernel,
          {KernelArg::value(std::uint32_t{64}), KernelArg::array<float>(floats),
           KernelArg::array<double>(floats), KernelArg::array<float>(floats)},
          &param);
  EXPECT_EQ(param, "b");
}

TEST_F(KernelDefinitionTest, EmptyBufferAndOutOfRangeOffsetAreRefused) {
  DeviceBuffer empty;
  std::string param;
  auto message = refusal(kernel,
                         {KernelArg::value(std::uint32_t{64}), KernelArg::array<float>(empty),
                          KernelArg::array<float>(floats), KernelArg::array<float>(floats)},
                         &param);
  EXPECT_EQ(param, "a");
  EXPECT_NE(message.find("the buffer is empty"), std::string::npos) << message;
  message = refusal(kernel,
                    {KernelArg::value(std::uint32_t{64}), KernelArg::array<float>(floats),
                     KernelArg::array<float>(floats), KernelArg::array<float>(floats, 64)},
                    &param);
  EXPECT_EQ(param, "c");
  EXPECT_NE(message.find("outside the 256 B buffer"), std::string::npos) << message;
}

TEST(KernelDefinition, MissingSourceFileIsAnErrorNamingFileAndKernel) {
  try {
    KernelDefinition::load_source("/nonexistent/stencil.cu", "stencil");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'stencil'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/stencil.cu"), std::string::npos);
  }
}

TEST(KernelDefinition, ImplementationsArePerBackend) {
  const auto kernel = testing::vector_add_kernel();
  EXPECT_TRUE(kernel.implements(BackendKind::cpu));
  EXPECT_TRUE(kernel.implements(BackendKind::opencl));
  EXPECT_TRUE(kernel.implements(BackendKind::cuda));
  EXPECT_FALSE(KernelDefinition("bare").implements(BackendKind::opencl));
  EXPECT_THROW(KernelDefinition("bad").array<float>("x", ParamAccess::read, 4), Error);
}

}  // namespace
}  // namespace strata::device
