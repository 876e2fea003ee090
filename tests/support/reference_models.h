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

}  // namespace ictus::test
