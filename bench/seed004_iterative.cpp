// Seed 004's claim measured (issue 17 part 5, docs/experiments/papers-claims.md):
// the non-iterative solution of A1 y + A2 |y| + A3 = 0 for the normal force
// y of the disk-rod-slider is faster and more reliable than an iterative one.
// The iterative variant exists here only, for the comparison: the fixed-point
// iteration y <- a theta''(y) + b with theta''(y) = -(B + |y| C sgn(x)) / A
// (trial and error: assume the normal force, compute the motion, correct the
// force), from the previous value, to |dy| <= 1e-12 (1 + |y|), at most 100
// iterations. The model is seed 004's reduced equation (7) with the
// coefficients of shared/reference/case4_disk_slider.py.
//
//   ictus_seed004_iterative report            the tables of papers-claims.md
//   ictus_seed004_iterative time noniterative  one timed workload (for whole-
//   ictus_seed004_iterative time iterative     process CPU comparisons)
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <random>
#include <string>

namespace {

constexpr double J = 0.25, R = 0.5, m1 = 1.0, m2 = 2.0, k_spring = 10.0, w = 5.0, g = 9.81;
constexpr double J0 = J + 2.0 / 3.0 * m2 * R * R;  // disk + rod about O (eq 6)

double sgn(double x) {
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
}

struct Coefficients {
  double A, B, C, a, b, x;
};

Coefficients coefficients(double th, double thd, double t, double mu, double Mmax) {
  const double M = Mmax * std::sin(w * t), s = std::sin(th), c = std::cos(th);
  return {(J + m2 * R * R / 3) + 2 * (2 * m1 + m2) * R * R * s * s,
          2 * (2 * m1 + m2) * R * R * thd * thd * s * c + 2 * m1 * g * R * s +
              1.5 * m2 * g * R * s + 4 * R * R * k_spring * (1 - c) * s - M,
          mu * s,
          J0 / c,
          (m2 * g * R * s - 2 * M) / (2 * c),
          thd * s};
}

struct Solve {
  double y = 0.0;
  int iterations = 0;
  bool ok = true;
};

// the paper's rule: y = -A3/(A1 + A2) if > 0, else -A3/(A1 - A2) (<= 0)
Solve non_iterative(const Coefficients& k) {
  const double A1 = k.A / k.a, A2 = k.C * sgn(k.x), A3 = k.B - k.A * k.b / k.a;
  Solve s;
  s.iterations = 1;
  if (A1 + A2 != 0 && A3 / (A1 + A2) < 0)
    s.y = -A3 / (A1 + A2);
  else if (A1 - A2 != 0 && A3 / (A1 - A2) >= 0)
    s.y = -A3 / (A1 - A2);
  else
    s.ok = false;  // no solution (Painleve)
  return s;
}

// trial and error: the normal force assumed, the motion computed, the force corrected
Solve iterative(const Coefficients& k, double guess) {
  Solve s;
  s.y = guess;
  for (s.iterations = 1; s.iterations <= 100; ++s.iterations) {
    const double thdd = -(k.B + std::abs(s.y) * k.C * sgn(k.x)) / k.A;
    const double y = k.a * thdd + k.b;
    const bool done = std::abs(y - s.y) <= 1e-12 * (1.0 + std::abs(y));
    s.y = y;
    if (!std::isfinite(y)) break;
    if (done) return s;
  }
  s.ok = false;
  return s;
}

struct Counts {
  long evaluations = 0, iterations = 0, failures = 0, most = 0;
};

// seed 004's case (mu, Mmax) from theta = 0.5 at rest over [0, 10] s by RK4
// with step h; returns theta(10)
double integrate(double mu, double Mmax, double h, bool use_iterative, Counts& n) {
  double th = 0.5, thd = 0.0, y_last = 0.0;
  auto acc = [&](double t, double q, double qd) {
    const Coefficients c = coefficients(q, qd, t, mu, Mmax);
    const Solve s = use_iterative ? iterative(c, y_last) : non_iterative(c);
    ++n.evaluations;
    n.iterations += s.iterations;
    n.most = std::max<long>(n.most, s.iterations);
    if (!s.ok) ++n.failures;
    y_last = s.y;
    return (s.y - c.b) / c.a;
  };
  const int steps = static_cast<int>(std::lround(10.0 / h));
  for (int i = 0; i < steps; ++i) {
    const double t = i * h;
    const double k1 = acc(t, th, thd), v1 = thd;
    const double k2 = acc(t + h / 2, th + h / 2 * v1, thd + h / 2 * k1), v2 = thd + h / 2 * k1;
    const double k3 = acc(t + h / 2, th + h / 2 * v2, thd + h / 2 * k2), v3 = thd + h / 2 * k2;
    const double k4 = acc(t + h, th + h * v3, thd + h * k3), v4 = thd + h * k3;
    th += h / 6 * (v1 + 2 * v2 + 2 * v3 + v4);
    thd += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return th;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void report() {
  fmt::print("Cases 2 (mu 0.5, Mmax 0) and 3 (mu 0.5, Mmax 2), RK4, h = 1e-4, 0..10 s:\n\n");
  fmt::print(
      "| case | solution | theta(10) | evaluations | iterations | most in one | failures | CPU [s] "
      "|\n");
  fmt::print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const auto& [name, Mmax] : {std::pair{"2", 0.0}, std::pair{"3", 2.0}})
    for (const bool it : {false, true}) {
      Counts n;
      const double c0 = cpu_seconds();
      const double th = integrate(0.5, Mmax, 1e-4, it, n);
      const double cpu = cpu_seconds() - c0;
      fmt::print("| {} | {} | {:.12f} | {} | {} | {} | {} | {:.4f} |\n", name,
                 it ? "iterative" : "non-iterative", th, n.evaluations, n.iterations, n.most,
                 n.failures, cpu);
    }
  // reliability: random states, the iteration from y = 0, inside and beyond
  // the range where the solution is unique (|theta| < 1.449222 rad for mu = 0.5)
  fmt::print(
      "\nRandom states (10^5 each; thd in (-6, 6), t in (0, 2), mu 0.5, Mmax 2), "
      "the iteration from y = 0:\n\n");
  fmt::print(
      "| theta range | non-iterative: no solution | iterative: not converged | "
      "iterations (mean, most) | largest |y_it - y| where both succeed |\n");
  fmt::print("| --- | ---: | ---: | --- | ---: |\n");
  std::mt19937_64 rng(17);
  for (const auto& [lo, hi] :
       {std::pair{0.0, 0.5}, std::pair{0.5, 1.2}, std::pair{1.2, 1.449}, std::pair{1.449, 1.55}}) {
    std::uniform_real_distribution<double> uth(lo, hi), uthd(-6, 6), ut(0, 2);
    long none = 0, fails = 0, sum = 0, most = 0;
    double worst = 0.0;
    const int count = 100000;
    for (int i = 0; i < count; ++i) {
      const double th = (i % 2 == 0 ? 1 : -1) * uth(rng);
      const Coefficients c = coefficients(th, uthd(rng), ut(rng), 0.5, 2.0);
      const Solve a = non_iterative(c), b = iterative(c, 0.0);
      if (!a.ok) ++none;
      if (!b.ok) ++fails;
      sum += b.iterations;
      most = std::max<long>(most, b.iterations);
      if (a.ok && b.ok) worst = std::max(worst, std::abs(a.y - b.y) / (1.0 + std::abs(a.y)));
    }
    fmt::print("| {} .. {} | {} | {} | {:.1f}, {} | {:.1e} |\n", lo, hi, none, fails,
               static_cast<double>(sum) / count, most, worst);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "time") == 0) {
    const bool it = std::strcmp(argv[2], "iterative") == 0;
    Counts n;
    double sum = 0.0;
    for (int r = 0; r < 5; ++r) sum += integrate(0.5, 2.0, 1e-4, it, n);
    fmt::print("{:.12f} {} evaluations {} iterations {} failures\n", sum, n.evaluations,
               n.iterations, n.failures);
    return 0;
  }
  report();
  return 0;
}
