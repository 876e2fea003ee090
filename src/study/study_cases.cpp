// The cases of a study: the full grid, a Latin hypercube or uniform random
// samples of the ranges (reproducible from the seed on every platform: the
// draws are made from std::mt19937_64's raw output, not a distribution whose
// algorithm the standard leaves open).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "ictus/study.h"

namespace ictus::study {

namespace {

// A uniform number in [0, 1) from 53 random bits.
double unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Fisher-Yates with the raw generator (std::shuffle's draws are unspecified).
void shuffle(std::vector<int>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace

std::vector<Case> study_cases(const Study& study) {
  const std::size_t n = study.parameters.size();
  std::vector<Case> cases;
  if (study.sampling == Sampling::kGrid) {
    for (const StudyParameter& p : study.parameters)
      if (p.values.empty())
        throw ModelError(p.where, fmt::format("parameter '{}'", p.name),
                         "a grid needs 'count' for a range (the number of values)");
    std::size_t total = 1;
    for (const StudyParameter& p : study.parameters) total *= p.values.size();
    cases.reserve(total);
    std::vector<std::size_t> digit(n, 0);
    for (std::size_t k = 0; k < total; ++k) {
      Case c;
      c.index = static_cast<int>(k);
      for (std::size_t i = 0; i < n; ++i) c.values.push_back(study.parameters[i].values[digit[i]]);
      cases.push_back(std::move(c));
      // the last parameter varies fastest
      for (std::size_t i = n; i-- > 0;) {
        if (++digit[i] < study.parameters[i].values.size()) break;
        digit[i] = 0;
      }
    }
    return cases;
  }
  std::mt19937_64 rng(study.seed);
  const int m = study.samples;
  cases.resize(static_cast<std::size_t>(m));
  for (int k = 0; k < m; ++k) cases[static_cast<std::size_t>(k)].index = k;
  for (const StudyParameter& p : study.parameters) {
    std::vector<int> stratum(static_cast<std::size_t>(m));
    std::iota(stratum.begin(), stratum.end(), 0);
    if (study.sampling == Sampling::kLatinHypercube) shuffle(stratum, rng);
    for (int k = 0; k < m; ++k) {
      // Latin hypercube (McKay, Beckman, Conover 1979): one point per stratum
      // [j/m, (j+1)/m) of each range, the strata of the parameters paired at random
      const double u = study.sampling == Sampling::kLatinHypercube
                           ? (stratum[static_cast<std::size_t>(k)] + unit(rng)) / m
                           : unit(rng);
      cases[static_cast<std::size_t>(k)].values.push_back(p.low + (p.high - p.low) * u);
    }
  }
  return cases;
}

}  // namespace ictus::study
