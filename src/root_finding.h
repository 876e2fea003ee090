// Locating a zero crossing inside one step, on the stepper's dense output;
// the roots of a function of one variable bracketed by a grid; and the
// points to try on a line along which every test is a quadratic.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace ictus::internal {

/// The Illinois method (regula falsi that halves the value kept at an end
/// chosen twice in a row; Dowell & Jarratt, BIT 11, 1971) on [a, b], where
/// `a` is on the side before the crossing and `b` on the crossed side.
/// `evaluate(c)` returns the function at c and `crossed(value)` tells its
/// side. fa and fb are the values at a and b, with opposite signs as the
/// sides demand. Returns the first point found on the crossed side, within
/// `tolerance` of the crossing (at most 200 iterations).
template <class Evaluate, class Crossed>
double locate_crossing(double a, double b, double fa, double fb, double tolerance,
                       Evaluate&& evaluate, Crossed&& crossed) {
  int side = 0;
  for (int iter = 0; iter < 200 && b - a > tolerance; ++iter) {
    double c = (a * fb - b * fa) / (fb - fa);
    if (!(c > a && c < b)) c = 0.5 * (a + b);
    const double fc = evaluate(c);
    if (crossed(fc)) {
      b = c;
      fb = fc;
      if (side == 1) fa *= 0.5;
      side = 1;
    } else {
      a = c;
      fa = fc;
      if (side == -1) fb *= 0.5;
      side = -1;
    }
  }
  return b;
}

/// The roots of phi on [u0, u1]: phi sampled at `points` (>= 2) equally
/// spaced u, and each sign change between neighbours refined by
/// locate_crossing to `tolerance`; found(u) is called for each root (the
/// point on the far side of the change) and for a sample where phi is
/// exactly zero. Where phi is not finite (undefined there) between two
/// samples, the edge of the part where it is is found by bisection and a
/// sign change up to that edge is refined too. Two roots closer than the
/// grid's spacing are missed.
template <class Phi, class Found>
void bracketed_roots(double u0, double u1, int points, double tolerance, Phi&& phi, Found&& found) {
  auto changes = [](double fa, double fb) {
    return std::isfinite(fa) && std::isfinite(fb) && fa != 0.0 && fb != 0.0 &&
           (fa > 0.0) != (fb > 0.0);
  };
  // a < b, phi(a) = fa and phi(b) = fb of opposite signs
  auto refine = [&](double a, double fa, double b, double fb) {
    const bool positive = fb > 0.0;
    found(locate_crossing(a, b, fa, fb, tolerance, phi, [positive](double v) {
      return std::isfinite(v) && (v > 0.0) == positive;
    }));
  };
  // from a finite sample towards one that is not: the last finite point
  auto edge = [&](double good, double f_good, double bad, double* f_edge) {
    *f_edge = f_good;
    for (int i = 0; i < 60 && std::abs(bad - good) > tolerance; ++i) {
      const double middle = 0.5 * (good + bad);
      const double f = phi(middle);
      if (std::isfinite(f)) {
        good = middle;
        *f_edge = f;
      } else {
        bad = middle;
      }
    }
    return good;
  };
  double u_prev = u0;
  double f_prev = phi(u0);
  if (f_prev == 0.0) found(u0);
  for (int i = 1; i < points; ++i) {
    const double u = u0 + (u1 - u0) * i / (points - 1);
    const double f = phi(u);
    double f_edge = 0.0;
    if (f == 0.0) {
      found(u);
    } else if (changes(f_prev, f)) {
      refine(u_prev, f_prev, u, f);
    } else if (std::isfinite(f_prev) && !std::isfinite(f)) {
      const double u_edge = edge(u_prev, f_prev, u, &f_edge);
      if (changes(f_prev, f_edge)) refine(u_prev, f_prev, u_edge, f_edge);
    } else if (!std::isfinite(f_prev) && std::isfinite(f)) {
      const double u_edge = edge(u, f, u_prev, &f_edge);
      if (changes(f_edge, f)) refine(u_edge, f_edge, u, f);
    }
    u_prev = u;
    f_prev = f;
  }
}

/// The side a function takes just after a point: its value g there, unless
/// that value is at the level of its change `change` over a short look-ahead
/// h (then the point is a root, up to round-off or the location tolerance,
/// and the direction of the motion decides: the sign of the change, i.e. of
/// dg/dt). The look-ahead is never trusted as a value: a root of g between
/// the point and the look-ahead would give the side past that root, which the
/// next step must locate as a crossing of its own (issue 9, defect 3).
/// `g` counts as a root when its linear extrapolation reaches zero within
/// kRootFraction h, far below the 1e-9 s look-ahead and above the 1e-14 s
/// tolerance of locate_crossing. Returns a value whose sign is the side
/// (0 when g and its change are both 0: no side).
inline double side_just_after(double g, double change) {
  constexpr double kRootFraction = 1e-3;
  if (std::abs(g) > kRootFraction * std::abs(change) || change == 0.0) return g;
  return change;
}

/// Appends the real roots of a2 t^2 + a1 t + a0 (a linear one where a2 is
/// below 1e-14 of the largest coefficient), by the stable form of the
/// quadratic formula.
inline void append_quadratic_roots(double a2, double a1, double a0, std::vector<double>& roots) {
  const double scale = std::max({std::abs(a2), std::abs(a1), std::abs(a0), 1e-300});
  if (std::abs(a2) <= 1e-14 * scale) {
    if (a1 != 0.0) roots.push_back(-a0 / a1);
    return;
  }
  const double discriminant = a1 * a1 - 4.0 * a2 * a0;
  if (discriminant < 0.0) return;
  const double q = -0.5 * (a1 + std::copysign(std::sqrt(discriminant), a1));
  roots.push_back(q / a2);
  if (q != 0.0) roots.push_back(a0 / q);
}

/// The points of a line t to try when every test along it changes its
/// outcome only at `roots` (sorted here): t = 0, a point between each two
/// neighbours, one beyond each end, then the roots themselves.
inline std::vector<double> line_trials(std::vector<double>& roots) {
  std::sort(roots.begin(), roots.end());
  std::vector<double> trials{0.0};
  for (std::size_t z = 0; z + 1 < roots.size(); ++z)
    trials.push_back(0.5 * (roots[z] + roots[z + 1]));
  if (!roots.empty()) {
    trials.push_back(roots.front() - 1.0 - std::abs(roots.front()));
    trials.push_back(roots.back() + 1.0 + std::abs(roots.back()));
  }
  trials.insert(trials.end(), roots.begin(), roots.end());
  return trials;
}

}  // namespace ictus::internal
