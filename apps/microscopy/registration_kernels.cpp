#include "microscopy/registration_kernels.hpp"

#include <cstdint>
#include <string>

#include "microscopy/cpu_kernels.hpp"
#include "microscopy/cuda_kernels.hpp"
#include "microscopy/device_layout.hpp"
#include "microscopy/opencl_kernels.hpp"

namespace strata::apps::microscopy {
namespace {

using device::KernelDefinition;
using device::ParamAccess;
namespace L = layout;

// The layout constants the OpenCL and CUDA sources use, as #defines.
KernelDefinition& with_layout(KernelDefinition& kernel) {
  const auto u = [](std::uint32_t value) { return std::to_string(value) + "u"; };
  return kernel.define("GROUP_SIZE", u(L::group_size))
      .define("OVERLAP_CUTOFF", std::to_string(L::overlap_cutoff) + "f")
      .define("STAGE_REFINE", u(L::stage_refine))
      .define("PARSED_HEADER", u(L::parsed_header))
      .define("ITEM_COUNT", u(L::item_count))
      .define("ITEM_SELF_L2", u(L::item_self_l2))
      .define("ITEM_SELF_BHATTACHARYYA", u(L::item_self_bhattacharyya))
      .define("ITEM_CENTROID_X", u(L::item_centroid_x))
      .define("ITEM_CENTROID_Y", u(L::item_centroid_y))
      .define("ITEM_HEADER", u(L::item_header))
      .define("STATE_ANGLE", u(L::state_angle))
      .define("STATE_TX", u(L::state_tx))
      .define("STATE_TY", u(L::state_ty))
      .define("STATE_ANGLE_STEP", u(L::state_angle_step))
      .define("STATE_TRANSLATION_STEP", u(L::state_translation_step))
      .define("STATE_BEST", u(L::state_best))
      .define("RESULT_SCORE", u(L::result_score))
      .define("RESULT_BHATTACHARYYA", u(L::result_bhattacharyya))
      .define("RESULT_RAW_L2", u(L::result_raw_l2))
      .define("RESULT_RAW_BHATTACHARYYA", u(L::result_raw_bhattacharyya))
      .define("CANDIDATE_SCORES", u(L::candidate_scores))
      .define("REFINE_CANDIDATES", u(L::refine_candidates))
      .define("REFINE_CENTER", u(L::refine_center));
}

RegistrationKernels build_kernels() {
  RegistrationKernels k;
  with_layout(k.preprocess)
      .scalar<float>("scale")
      .array<float>("parsed", ParamAccess::read)
      .array<float>("item", ParamAccess::write)
      .cpu(preprocess_cpu)
      .opencl(preprocess_opencl())
      .cuda(preprocess_cuda());
  with_layout(k.candidate_scores)
      .scalar<std::uint32_t>("stage")
      .scalar<std::uint32_t>("angles")
      .scalar<std::uint32_t>("iterations")
      .scalar<float>("scale")
      .array<float>("left", ParamAccess::read)
      .array<float>("right", ParamAccess::read)
      .array<float>("comparison", ParamAccess::read_write)
      .cpu(candidate_scores_cpu)
      .opencl(candidate_scores_opencl())
      .cuda(candidate_scores_cuda());
  with_layout(k.select)
      .scalar<std::uint32_t>("stage")
      .scalar<std::uint32_t>("angles")
      .scalar<float>("angle_step")
      .scalar<float>("translation_step")
      .array<float>("comparison", ParamAccess::read_write)
      .cpu(select_cpu)
      .opencl(select_opencl())
      .cuda(select_cuda());
  with_layout(k.finish)
      .scalar<float>("scale")
      .array<float>("left", ParamAccess::read)
      .array<float>("right", ParamAccess::read)
      .array<float>("comparison", ParamAccess::read_write)
      .cpu(finish_cpu)
      .opencl(finish_opencl())
      .cuda(finish_cuda());
  return k;
}

}  // namespace

const RegistrationKernels& registration_kernels() {
  static const RegistrationKernels kernels = build_kernels();
  return kernels;
}

}  // namespace strata::apps::microscopy
