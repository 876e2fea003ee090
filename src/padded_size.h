// The size at which the slip solves (coupled_slip.h, spatial_slip.h)
// factorise a set: the next power of two, at least 2. Each keeps one
// decomposition per power of two, made when the model is built, and pads a
// smaller set with a diagonal block, so that no set size allocates in the
// step loop.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <bit>

namespace ictus::internal {

inline Eigen::Index padded_size(int count) {
  return static_cast<Eigen::Index>(std::bit_ceil(static_cast<unsigned>(std::max(count, 2))));
}

}  // namespace ictus::internal
