// Models built in C++ for tests and benchmarks, where a model file would be
// unwieldy (sizes chosen at run time).
#pragma once

#include "ictus/model.h"

namespace ictus::test {

/// A chain of `links` uniform rods (length 0.1 m, mass 0.1 kg) joined by
/// revolute joints about y, hanging from the ground at the origin, initially
/// horizontal along +x, under gravity -z. The constraint graph is a path, so
/// the Cholesky factor of S has O(links) non-zeros.
Model make_chain(int links);

/// `count` independent pendulums: uniform rods (mass 0.1 kg, lengths 0.1 m
/// to 0.2 m) each hinged to the ground about y, side by side 0.3 m apart
/// along y, released at angles from horizontal to 45 degrees below, under
/// gravity -z. No body depends on another: dF/dy is block-diagonal.
Model make_pendulums(int count);

}  // namespace ictus::test
