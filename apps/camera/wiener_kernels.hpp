#pragma once
// The kernels of the Wiener filter that cleans a PRNU pattern in the Fourier domain (Chen et al.
// 2008, as in Van Werkhoven et al.'s NFI application): frequencies whose local power stands out
// of the pattern's variance — periodic artefacts such as JPEG's 8x8 blocking and a model's
// shared patterns, which are peaks in the spectrum — are scaled down to it. Spectra are the half
// spectra of real FFTs (height x (width / 2 + 1) complex values, interleaved re, im).

#include "strata/device/kernel.hpp"

namespace strata::apps::camera {

// The window sides whose local mean power is taken, the smallest of the means being the
// frequency's local power estimate.
inline constexpr int wiener_windows[] = {3, 5, 7, 9};

// prnu_spectrum_power(width, height, spectrum, power), one thread per value of the half spectrum
// (2-D: width / 2 + 1 by height): power = |F|^2 / (width * height), whose mean over the full
// spectrum is the pattern's variance (Parseval).
const device::KernelDefinition& spectrum_power_kernel();

// prnu_wiener_scale(width, height, spectrum, power, energy), one thread per value of the half
// spectrum: F *= variance / max(variance, local power), the local power being the smallest mean
// of `power` over the windows around the frequency in the full spectrum (zero outside it; the
// half not stored read from its Hermitian mirror). The variance is 1 / (energy[width]^2 * width
// * height), energy[width] being the inverse norm prnu_inverse_norm wrote.
const device::KernelDefinition& wiener_scale_kernel();

}  // namespace strata::apps::camera
