// Models built in C++ for tests and benchmarks, where a model file would be
// unwieldy (sizes chosen at run time).
#pragma once

#include <string>

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

/// A chain of `count` parallelograms (tests/acceptance/singular_passage_test.cpp):
/// count + 1 cranks (r = 0.3 m, 0.5 kg) hinged to the ground about z at
/// x = 0, 1, ... m, count couplers (1 m, 1 kg) hinged to the tips of two
/// neighbouring cranks; the cranks upright, turning at 4 rad/s, gravity -y.
/// Each parallelogram closes a loop whose planar hinges have 3 redundant
/// rows in 3-D; twice per turn all links are collinear and the rank falls.
Model make_parallelogram_chain(int count);
/// Its model file text, running until `until` seconds.
std::string parallelogram_chain_text(int count, double until);

}  // namespace ictus::test
