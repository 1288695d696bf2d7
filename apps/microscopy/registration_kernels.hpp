#pragma once
// The device kernels of the microscopy application, each with a C++ implementation (CPU
// backend), an OpenCL C one and a CUDA one. Preprocessing centres and packs a particle and computes
// its self overlaps; a comparison scores a coarse grid of rotations (each with a mean-shifted
// translation), refines the best by a compass search over rotation and translation, and
// finishes with the normalized scores at the optimum.

#include "strata/device/kernel.hpp"

namespace strata::apps::microscopy {

// Every kernel; built once per process (registration_kernels()) so that a device compiles each
// once. Layouts of the arrays: device_layout.hpp.
struct RegistrationKernels {
  // (scale, parsed, item), one work-group: the centroid, the centred structure of arrays, the
  // header, and the item's GMM L2 (at `scale`) and Bhattacharyya overlaps with itself.
  device::KernelDefinition preprocess{"microscopy_preprocess"};
  // (stage, angles, iterations, scale, left, right, comparison), one work-group per candidate.
  // Coarse stage: group g takes rotation 2 pi g / angles, moves the translation by `iterations`
  // mean-shift steps from the centroid alignment and records it with the L2 overlap there.
  // Refine stage: group g scores the g-th of the 27 compass neighbours of the state.
  device::KernelDefinition candidate_scores{"microscopy_candidate_scores"};
  // (stage, angles, angle_step, translation_step, comparison), one thread. Coarse stage: the
  // best candidate becomes the state, with the given steps. Refine stage: the state moves to
  // its best neighbour, or its steps halve when none is better.
  device::KernelDefinition select{"microscopy_select"};
  // (scale, left, right, comparison), one work-group: the L2 and Bhattacharyya overlaps at the
  // state, raw and normalized by the self overlaps.
  device::KernelDefinition finish{"microscopy_finish"};
};

const RegistrationKernels& registration_kernels();

}  // namespace strata::apps::microscopy
