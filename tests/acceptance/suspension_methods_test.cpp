// Seed 003 (Filipkovsky), examples/suspension.yaml, by every method the seed
// compares (issue 6, corrected by issue 16): Table 1 (viscous) by HHT, CVODE,
// DOPRI, RK4, Newmark and Wilson-theta; Tables 2 and 3 (structural damping,
// dry friction, with true sticking) by Newmark, Wilson-theta (each with and
// without the two-pass scheme) and RK4, against the event-driven Filippov
// reference of shared/reference/REPORT.md, case 3 ("Reference values",
// case3_output.txt). The step-size channel integrator.step, and the summary
// peaks of the model file (summary: peaks:) that print the paper's columns.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "support/test_support.h"

namespace ictus {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDt = kPi / 960.0;  // the seed's step (REPORT: 22 of 24 table times)
constexpr double kPulseEnd = kPi / 10.0;

struct Extremum {
  double value = 0.0;
  double t = 0.0;
};

// Signed value of the largest |x| (or, `minimum`, the smallest x) over the
// samples with t in [t0, t1], refined between samples: where the derivative
// dx changes sign next to it, by the cubic Hermite interpolant of x and dx
// (exact to h^4); otherwise by the parabola through equally spaced
// neighbours. A sample next to an event (a pair of samples at one instant:
// a one-sided limit at a jump of a) or on a flat stretch (stuck) stands.
Extremum extremum(const std::vector<double>& t, const std::vector<double>& x,
                  const std::vector<double>* dx = nullptr, double t0 = -1e300, double t1 = 1e300,
                  bool minimum = false) {
  auto score = [minimum](double v) { return minimum ? -v : std::abs(v); };
  std::size_t i = x.size();
  for (std::size_t k = 0; k < x.size(); ++k)
    if (t[k] >= t0 && t[k] <= t1 && (i == x.size() || score(x[k]) > score(x[i]))) i = k;
  Extremum e{x[i], t[i]};
  if (i == 0 || i + 1 >= x.size()) return e;
  const double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
  if (std::abs(h0 - h1) > 1e-6 * h1) return e;  // an event sample: keep it
  if (dx != nullptr) {
    const std::vector<double>& d = *dx;
    for (std::size_t j = i - 1; j <= i; ++j) {
      if (!(d[j] * d[j + 1] < 0.0)) continue;
      const double h = t[j + 1] - t[j];
      auto hermite = [&](double z, double* slope) {
        const double z2 = z * z, z3 = z2 * z;
        *slope = ((6 * z2 - 6 * z) * x[j] + (3 * z2 - 4 * z + 1) * h * d[j] +
                  (-6 * z2 + 6 * z) * x[j + 1] + (3 * z2 - 2 * z) * h * d[j + 1]) /
                 h;
        return (2 * z3 - 3 * z2 + 1) * x[j] + (z3 - 2 * z2 + z) * h * d[j] +
               (-2 * z3 + 3 * z2) * x[j + 1] + (z3 - z2) * h * d[j + 1];
      };
      double s = d[j] / (d[j] - d[j + 1]);  // linear guess, then bisection on the slope
      double lo = 0.0, hi = 1.0, slope_lo = 0.0;
      (void)hermite(lo, &slope_lo);
      for (int it = 0; it < 60; ++it) {
        double slope = 0.0;
        (void)hermite(s, &slope);
        if ((slope > 0.0) == (slope_lo > 0.0)) {
          lo = s;
        } else {
          hi = s;
        }
        s = 0.5 * (lo + hi);
      }
      double slope = 0.0;
      e.value = hermite(s, &slope);
      e.t = t[j] + s * h;
      return e;
    }
    return e;
  }
  const double c = x[i - 1] - 2.0 * x[i] + x[i + 1];
  if (c == 0.0) return e;
  const double s = 0.5 * (x[i - 1] - x[i + 1]) / c;  // vertex, in steps from t[i]
  if (std::abs(s) > 1.0) return e;
  e.value = x[i] - 0.25 * (x[i - 1] - x[i + 1]) * s;
  e.t = t[i] + s * h1;
  return e;
}

struct Method {
  const char* integrator;
  bool two_pass = false;
  std::string label() const {
    return two_pass ? fmt::format("{} two_pass", integrator) : std::string(integrator);
  }
};

struct MethodRun {
  test::RecordedRun run;
  Extremum u, v, a, a_pulse;
  double wall = 0.0;
};

// The example run by `method` with a fixed `step` (or, step 0, an adaptive
// method at rtol), sampled every `output_step`.
MethodRun run_suspension(const Method& method, double step, double output_step,
                         const ParameterOverrides& overrides, double until = 1.5,
                         double rtol = 1e-11) {
  Model model = load_model(test::source_path("examples/suspension.yaml"), overrides);
  SimulationSettings& s = model.settings();
  s.integrator.name = method.integrator;
  s.integrator.given.clear();
  if (step > 0.0) {
    s.integrator.step = step;
    s.integrator.given.emplace_back("step");
  } else {
    s.integrator.rtol = rtol;
    s.integrator.atol = 1e-2 * rtol;
  }
  s.integrator.two_pass = method.two_pass;
  if (method.two_pass) s.integrator.given.emplace_back("two_pass");
  s.output_step = output_step;
  s.until = until;
  model.validate();
  MethodRun r;
  const auto start = std::chrono::steady_clock::now();
  r.run = test::run_and_record(model, {"guide.x", "guide.v", "block.az", "integrator.step"});
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto& t = r.run.t;
  r.u = extremum(t, r.run["guide.x"], &r.run["guide.v"]);
  r.v = extremum(t, r.run["guide.v"], &r.run["block.az"]);
  r.a = extremum(t, r.run["block.az"]);
  // the paper's a_max in Tables 2, 3: the extremum inside the pulse (issue 16)
  // (its minimum: with psi = 0.48 the largest |a| there is the +66 m/s^2 just
  // before the stick at 0.183 s)
  r.a_pulse = extremum(t, r.run["block.az"], nullptr, 0.0, kPulseEnd, true);
  return r;
}

// |got - want| / |want|
double rel(double got, double want) {
  return test::relative_error(got, want);
}

// ---------------------------------------------------------------------------
// Table 1 (viscous): the exact solution's continuous extrema (REPORT.md
// case 3, Table 1 "exact, continuous extrema").
constexpr Extremum kExactU{-0.33527075, 0.215281}, kExactV{3.9272413, 0.322052},
    kExactA{-59.390487, 0.391936};

// Adaptive methods at tight tolerance: 1e-6 relative (REPORT "Suggested
// tests" item 1), times to 2e-6 s (the reference prints them to 1e-6 s).
TEST(SuspensionTable1, CvodeAndDopriMatchTheExactContinuousExtrema) {
  for (const char* integrator : {"dopri5", "cvode"}) {
    SCOPED_TRACE(integrator);
    const MethodRun r = run_suspension({integrator}, 0.0, 1e-4, {}, 0.5);
    EXPECT_LT(rel(r.u.value, kExactU.value), 1e-6) << r.u.value;
    EXPECT_LT(rel(r.v.value, kExactV.value), 1e-6) << r.v.value;
    EXPECT_LT(rel(r.a.value, kExactA.value), 1e-6) << r.a.value;
    EXPECT_NEAR(r.u.t, kExactU.t, 2e-6);
    EXPECT_NEAR(r.v.t, kExactV.t, 2e-6);
    EXPECT_NEAR(r.a.t, kExactA.t, 2e-6);
  }
}

// Second- and fourth-order fixed-step methods at a tenth of the seed's step
// (or less): 5 significant digits of the exact continuous extrema, i.e.
// 1e-5 relative; times to a tenth of the step they are sampled on.
TEST(SuspensionTable1, FixedStepMethodsAtSmallStepsMatchTheExactExtremaTo5Digits) {
  struct Case {
    const char* integrator;
    double step;
  };
  for (const Case& c : {Case{"hht", kPi / 9600}, Case{"rk4", kDt / 10}}) {
    SCOPED_TRACE(c.integrator);
    const MethodRun r = run_suspension({c.integrator}, c.step, c.step, {}, 0.5);
    EXPECT_LT(rel(r.u.value, kExactU.value), 1e-5) << r.u.value;
    EXPECT_LT(rel(r.v.value, kExactV.value), 1e-5) << r.v.value;
    EXPECT_LT(rel(r.a.value, kExactA.value), 1e-5) << r.a.value;
    EXPECT_NEAR(r.u.t, kExactU.t, 0.1 * c.step);
    EXPECT_NEAR(r.v.t, kExactV.t, 0.1 * c.step);
    EXPECT_NEAR(r.a.t, kExactA.t, 0.1 * c.step);
  }
}

// Issue 16: at dt/10, sampled every 10th step (on the seed's pi/960 grid),
// the fixed-step rows of case3_output.txt, printed to 6 decimals (u, v) and
// 5 (a): Newmark -0.335258 / 3.925822 / -59.38389, Wilson -0.335259 /
// 3.925850 (Wilson's printed a is the scheme's own acceleration, which the
// channels do not report: docs/theory/steppers.md), RK4 the exact grid row
// -0.33525785 / 3.92581031 / -59.3835757 to 5 digits. Grid indices 66, 98, 120.
TEST(SuspensionTable1, NewmarkWilsonAndRk4AtATenthOfTheSeedStepOnItsGrid) {
  struct Row {
    const char* integrator;
    double u, v, a;
    double tolerance_u, tolerance_v, tolerance_a;
  };
  for (const Row& row : {Row{"newmark", -0.335258, 3.925822, -59.38389, 5e-7, 5e-7, 5e-6},
                         Row{"wilson", -0.335259, 3.925850, 0.0, 5e-7, 5e-7, 0.0},
                         Row{"rk4", -0.33525785, 3.92581031, -59.3835757, 3.4e-6, 3.9e-5, 6e-4}}) {
    SCOPED_TRACE(row.integrator);
    const MethodRun r = run_suspension({row.integrator}, kDt / 10, kDt, {}, 458 * kDt);
    auto grid_extremum = [&](const std::string& channel) {
      const std::vector<double>& x = r.run[channel];
      std::size_t i = 0;
      for (std::size_t k = 0; k < x.size(); ++k)
        if (std::abs(x[k]) > std::abs(x[i])) i = k;
      return Extremum{x[i], r.run.t[i]};
    };
    const Extremum u = grid_extremum("guide.x"), v = grid_extremum("guide.v"),
                   a = grid_extremum("block.az");
    EXPECT_NEAR(u.value, row.u, row.tolerance_u);
    EXPECT_NEAR(v.value, row.v, row.tolerance_v);
    EXPECT_NEAR(u.t, 66 * kDt, 1e-9);
    EXPECT_NEAR(v.t, 98 * kDt, 1e-9);
    if (row.tolerance_a > 0.0) {
      EXPECT_NEAR(a.value, row.a, row.tolerance_a);
      EXPECT_NEAR(a.t, 120 * kDt, 1e-9);
    }
  }
}

// ---------------------------------------------------------------------------
// Tables 2 and 3: the reference's event-driven values (REPORT.md case 3,
// "Reference values"): u and v continuous extrema, the early in-pulse min a
// (the paper's a_max column, issue 16), the max |a| (its one-sided limit at
// a reversal), and the stick/slip switches.
struct Reference {
  const char* name;
  ParameterOverrides overrides;
  Extremum u, v, a, a_pulse;
  std::vector<std::pair<const char*, double>> switches;  // kind, time (after the start)
  double tolerance;                                      // relative, REPORT item 3
};

std::vector<Reference> references() {
  return {
      {"psi 0.48",
       {{"psi", "0.48"}},
       {-0.2719282, 0.183025},
       {3.796721, 0.393366},
       {-92.37821, 0.457926},
       {-36.9781, 0.058761},
       {{"stick", 0.183017568}, {"slip", 0.252707401}, {"reversal", 0.457925625}},
       3e-3},
      {"psi 0.24",
       {{"psi", "0.24"}},
       {-0.3338562, 0.194700},
       {4.680170, 0.346608},
       {-104.2323, 0.417139},
       {-39.8031, 0.063198},
       {{"reversal", 0.194700323}, {"reversal", 0.417138850}},
       1e-2},
      {"fT 44.2",
       {{"fT", "44.2"}},
       {-0.3366197, 0.220271},
       {4.532917, 0.333803},
       {-90.65835, 0.412343},
       {-38.2242, 0.087284},
       {{"slip", 0.0227231},
        {"reversal", 0.220270874},
        {"reversal", 0.412342912},
        {"reversal", 0.569422545},
        {"stick", 0.726502177}},
       3e-3},
      {"fT 33.6",
       {{"fT", "33.6"}},
       {-0.3587158, 0.217764},
       {5.025312, 0.328388},
       {-100.5063, 0.406928},
       {-39.6328, 0.082820},
       {{"slip", 0.017210215},
        {"reversal", 0.217763737},
        {"reversal", 0.406927863},
        {"reversal", 0.564007496},
        {"stick", 0.721087129}},
       3e-3},
  };
}

void expect_matches(const MethodRun& r, const Reference& ref, double tolerance,
                    double t_tolerance) {
  EXPECT_LT(rel(r.u.value, ref.u.value), tolerance) << "u " << r.u.value;
  EXPECT_LT(rel(r.v.value, ref.v.value), tolerance) << "v " << r.v.value;
  EXPECT_LT(rel(r.a.value, ref.a.value), tolerance) << "max |a| " << r.a.value;
  EXPECT_LT(rel(r.a_pulse.value, ref.a_pulse.value), tolerance) << "a in pulse " << r.a_pulse.value;
  EXPECT_NEAR(r.a_pulse.t, ref.a_pulse.t, t_tolerance);
  // the switches after the start, in order (the first ones the reference lists)
  std::vector<const EventRecord*> got;
  for (const EventRecord& e : r.run.events)
    if ((e.kind == "stick" || e.kind == "slip" || e.kind == "reversal") && e.t > 0.0)
      got.push_back(&e);
  ASSERT_GE(got.size(), ref.switches.size());
  for (std::size_t k = 0; k < ref.switches.size(); ++k) {
    SCOPED_TRACE(
        fmt::format("switch {}: {} at {}", k, ref.switches[k].first, ref.switches[k].second));
    EXPECT_EQ(got[k]->kind, ref.switches[k].first);
    EXPECT_NEAR(got[k]->t, ref.switches[k].second, t_tolerance);
  }
  // dry friction: stuck for good from the last switch to the end
  if (ref.switches.back().first == std::string("stick")) {
    EXPECT_EQ(got.size(), ref.switches.size());
  }
}

// Each method the seed uses (Newmark and Wilson-theta with and without the
// two-pass scheme, RK4) on each model at `step`: within the REPORT's
// physical tolerance (item 3: 1 % for psi = 0.24, 3e-3 for the stick cases)
// and within `observed`, a regression bound from the measured errors.
void check_methods(double step, double observed, double t_tolerance) {
  for (const Reference& ref : references()) {
    for (const Method& m : {Method{"newmark"}, Method{"newmark", true}, Method{"wilson"},
                            Method{"wilson", true}, Method{"rk4"}}) {
      SCOPED_TRACE(fmt::format("{} by {} at h = {:.4g}", ref.name, m.label(), step));
      const MethodRun r = run_suspension(m, step, 1e-4, ref.overrides);
      expect_matches(r, ref, std::min(ref.tolerance, observed), t_tolerance);
    }
  }
}

// The step the reference names for the stick cases, dt = pi/96000 (REPORT
// item 3). The switches are located events on each stepper's dense output
// (not the sign() schemes the REPORT's 3e-3 was set for): the largest error
// measured is 7.5e-5 (Wilson two-pass, psi = 0.48; 2e-7 for the others),
// switch times within 7e-6 s (the output grid's parabola for a's time, and
// the located switches). 20 runs of 45,837 steps: 2.7 s in Release, so
// labelled slow (tests/CMakeLists.txt: "Slow" in the name); the test below
// covers the same at pi/9600 in every build.
TEST(SuspensionTables2And3Slow, FixedStepMethodsAtTheReferenceStep) {
  check_methods(kPi / 96000, 1e-4, 1e-5);
}

// The coarsest step tried that meets the REPORT's tolerances for every method
// and model, pi/9600 (0.4 s for the 20 runs). Measured: 7.5e-4 Wilson
// two-pass (psi = 0.48), below 1e-5 for the rest; switch times within 1.3e-5
// s. (At the seed's pi/960 Wilson two-pass misses, 7e-3 for psi = 0.48; the
// others stay within 1e-3.)
TEST(SuspensionTables2And3, FixedStepMethodsAtATenthOfTheSeedStep) {
  check_methods(kPi / 9600, 1e-3, 1e-4);
}

// ---------------------------------------------------------------------------
// The step-size channel (issue 6: seeds 001 and 003 plot the step history):
// the fixed step of rk4 and newmark at every sample after the start, and a
// history that varies for the adaptive dopri5 and rkf45.
TEST(StepSizeChannel, IsTheFixedStepOrTheAdaptiveHistory) {
  for (const char* integrator : {"rk4", "newmark", "dopri5", "rkf45"}) {
    SCOPED_TRACE(integrator);
    const bool fixed = std::string(integrator) == "rk4" || std::string(integrator) == "newmark";
    // until a multiple of the step: no shorter last step; the pulse ends on the grid
    const MethodRun r = run_suspension({integrator}, fixed ? kDt : 0.0, 1e-3, {}, 150 * kDt, 1e-8);
    const std::vector<double>& h = r.run["integrator.step"];
    EXPECT_EQ(h.front(), 0.0);  // before the first step
    double lo = 1e300, hi = 0.0;
    for (std::size_t k = 1; k < h.size(); ++k) {
      lo = std::min(lo, h[k]);
      hi = std::max(hi, h[k]);
    }
    if (fixed) {
      EXPECT_NEAR(lo, kDt, 1e-12 * kDt);
      EXPECT_NEAR(hi, kDt, 1e-12 * kDt);
    } else {
      EXPECT_GT(lo, 0.0);
      EXPECT_GT(hi, 2.0 * lo);  // it adapts (and restarts small at the pulse's end)
    }
  }
}

// ---------------------------------------------------------------------------
// The summary peaks of the example (summary: peaks:), as `ictus run` prints
// them: with psi = 0.48 the paper's columns u, v and the in-pulse minimum of
// a (issue 16), from the example's own run (dopri5, output step 1e-3, located
// on the dense output: tests/acceptance/located_extrema_test.cpp holds them to
// 1e-8), against the reference to its printed digits or looser.
TEST(SummaryPeaks, PrintThePaperColumnsOfTheExample) {
  const Model model =
      load_model(test::source_path("examples/suspension.yaml"), {{"C", "0"}, {"psi", "0.48"}});
  ASSERT_EQ(model.settings().peaks.size(), 4u);
  Simulation simulation(model);
  check_summary_peaks(simulation.system(), model.settings().peaks);
  Summary summary({"guide.x"}, model.settings().peaks);
  simulation.add_observer(summary);
  (void)simulation.run();
  const std::vector<PeakResult> peaks = summary.peaks();
  ASSERT_EQ(peaks.size(), 4u);
  for (const PeakResult& p : peaks) EXPECT_TRUE(p.found) << p.peak.label;
  EXPECT_EQ(peaks[0].peak.label, "u_max");
  EXPECT_EQ(peaks[0].unit, "m");
  EXPECT_LT(rel(peaks[0].value, -0.2719282), 1e-6);  // stuck: flat
  // v peaks where a = 0 at u = 0, a kink of a (the structural force
  // psi K |u|): its time is ill-conditioned, within half the output step
  EXPECT_LT(rel(peaks[1].value, 3.796721), 2e-5);
  EXPECT_NEAR(peaks[1].t, 0.393366, 5e-4);
  EXPECT_LT(rel(peaks[2].value, -92.37821), 1e-6);  // one-sided, at the reversal
  EXPECT_NEAR(peaks[2].t, 0.457926, 1e-6);
  EXPECT_NEAR(peaks[3].peak.to, kPulseEnd, 1e-15);
  EXPECT_LT(rel(peaks[3].value, -36.9781), 1e-4);
  EXPECT_NEAR(peaks[3].t, 0.058761, 1e-4);
  const std::string table = summary.peak_table();
  EXPECT_NE(table.find("a_max in the pulse"), std::string::npos) << table;
  EXPECT_NE(table.find("0 .. 0.314159"), std::string::npos) << table;
}

// An unknown channel is reported at the entry, with a suggestion.
TEST(SummaryPeaks, UnknownChannelIsAModelError) {
  const Model model = parse_model(
      "bodies: {block: {mass: 2, inertia: [1, 1, 1]}}\n"
      "summary: {peaks: [{channel: block.zz}]}\n",
      "inline.yaml");
  const System system(model);
  try {
    check_summary_peaks(system, model.settings().peaks);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("inline.yaml:2:29"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'block.z'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ictus
