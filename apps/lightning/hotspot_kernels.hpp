#pragma once
// HotSpot (the lightning paper's §4.2, after Rodinia's hotspot) as one distributed kernel: one
// explicit step of the chip's 2-D thermal model — each cell's temperature moves with its power,
// its four neighbours (the 5-point stencil, clamped at the borders as Rodinia does) and the
// ambient temperature.

#include <vector>

#include "strata/array/array_kernel.hpp"

namespace strata::lightning {

// The step's constants, as Rodinia's kernels take them (its names: step/Cap, 1/Rx, 1/Ry, 1/Rz,
// amb_temp).
struct HotspotConstants {
  float step_div_cap = 0;
  float rx_1 = 0;
  float ry_1 = 0;
  float rz_1 = 0;
  float ambient = 0;
};
// Rodinia's chip (0.5 mm thick silicon, at most 3e6 W/m^2) with cells of its 512 x 512 grid on
// a 16 mm chip, whatever the grid's size: the chip grows with the grid, so the explicit step
// stays stable (on Rodinia's fixed 16 mm chip, step/Cap/Rx grows with the cells per side
// squared and passes 1/4, the explicit 5-point limit, at about 1,390 cells a side).
HotspotConstants hotspot_constants();

// out[i, j] = temp[i, j] + step/Cap * (power[i, j] + (temp[i+1, j] + temp[i-1, j] - 2 temp[i, j])
// / Ry + (temp[i, j+1] + temp[i, j-1] - 2 temp[i, j]) / Rx + (ambient - temp[i, j]) / Rz), in
// f32 in that order; a neighbour outside the grid is the cell itself.
// Arguments: rows, cols, step_div_cap, rx_1, ry_1, rz_1, ambient, power, temp, out (rows x cols
// f32 each).
array::ArrayKernel hotspot_kernel();

std::vector<array::ArrayKernel> hotspot_kernels();

}  // namespace strata::lightning
