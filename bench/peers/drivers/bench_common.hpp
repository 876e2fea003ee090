// Shared helpers for the peer-engine benchmarks (timing, statistics, CSV output).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;  // monotonic

// CPU time of the process (the machine is shared: wall time measures the
// neighbours too); -DBENCH_WALL_TIME for the wall clock
inline double now_s() {
#ifdef BENCH_WALL_TIME
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
#else
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
#endif
}

struct Stats {
  double min = 0, median = 0;
  int n = 0;
};

inline Stats stats(std::vector<double> v) {
  Stats s;
  s.n = (int)v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.median = (v.size() % 2) ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  return s;
}

// Number of timed repeats: default 5, overridable with BENCH_REPEATS.
// If one run takes longer than BENCH_SLOW_S seconds (default 60) only 3 repeats are done.
inline int repeats_default() {
  const char* e = std::getenv("BENCH_REPEATS");
  return e ? std::max(1, std::atoi(e)) : 5;
}
inline double slow_threshold() {
  const char* e = std::getenv("BENCH_SLOW_S");
  return e ? std::atof(e) : 60.0;
}

// Simulated time for the chain benchmarks: 10 s, or BENCH_T if set.  If a short probe shows that
// one run would take longer than BENCH_MAX_RUN_S (default 60 s) of wall time, the simulated time is
// cut to the largest of {5,2,1,0.5,0.2,0.1} s that fits; the row then reports the shorter tsim and
// its energy drift is not comparable with 10 s rows.
inline double tsim_default() {
  const char* e = std::getenv("BENCH_T");
  return e ? std::atof(e) : 10.0;
}
inline double choose_tsim(double T, double probe_sim, double probe_wall) {
  const char* e = std::getenv("BENCH_MAX_RUN_S");
  double mx = e ? std::atof(e) : 60.0;
  if (std::getenv("BENCH_T") || probe_wall / probe_sim * T <= mx) return T;
  for (double c : {5.0, 2.0, 1.0, 0.5, 0.2})
    if (c < T && probe_wall / probe_sim * c <= mx) return c;
  return 0.1;
}

// Run `reset()` (untimed) then `run()` (timed) several times.
inline Stats time_repeats(const std::function<void()>& reset, const std::function<void()>& run) {
  std::vector<double> t;
  int reps = repeats_default();
  for (int r = 0; r < reps; ++r) {
    reset();
    double t0 = now_s();
    run();
    double t1 = now_s();
    t.push_back(t1 - t0);
    if (r == 0 && (t1 - t0) > slow_threshold() && reps > 3) reps = 3;
  }
  return stats(t);
}

// One result row.  Columns are documented in PEERS.md.
struct Row {
  std::string engine, model, variant;
  int n = 0;                  // number of links / bodies (model size)
  double dt = 0;              // nominal step (0 = adaptive)
  double tsim = 0;            // simulated time [s]
  long steps = 0;             // steps taken in one run
  double build_s = 0;         // model build time [s]
  Stats wall;                 // wall time of the simulation loop [s]
  double E0 = NAN, E1 = NAN;  // total energy at t=0 and t=tsim [J]
  double escale = NAN;        // energy scale used for the relative drift
  std::string extra;          // free-form accuracy info ("key=value;...")
};

inline void print_header() {
  std::printf(
      "engine,model,variant,n,dt,tsim,steps,build_s,reps,wall_min_s,wall_med_s,"
      "wall_per_simsec_min,steps_per_s_min,E0,E_end,dE,dE_rel,extra\n");
}

inline void print_row(const Row& r) {
  double dE = r.E1 - r.E0;
  double rel = dE / r.escale;
  std::printf("%s,%s,%s,%d,%g,%g,%ld,%.6g,%d,%.6g,%.6g,%.6g,%.6g,%.10g,%.10g,%.4e,%.4e,%s\n",
              r.engine.c_str(), r.model.c_str(), r.variant.c_str(), r.n, r.dt, r.tsim, r.steps,
              r.build_s, r.wall.n, r.wall.min, r.wall.median, r.wall.min / r.tsim,
              r.steps / r.wall.min, r.E0, r.E1, dE, rel, r.extra.c_str());
  std::fflush(stdout);
}

// Parse "--only=chain,slider,ball,chain3d" and "--n=4,16,64,256"
inline bool want(int argc, char** argv, const char* what) {
  for (int i = 1; i < argc; ++i)
    if (!std::strncmp(argv[i], "--only=", 7)) {
      std::string s = std::string(",") + (argv[i] + 7) + ",";
      return s.find(std::string(",") + what + ",") != std::string::npos;
    }
  return true;
}
inline std::vector<int> sizes(int argc, char** argv) {
  std::vector<int> v;
  for (int i = 1; i < argc; ++i)
    if (!std::strncmp(argv[i], "--n=", 4)) {
      std::string s = argv[i] + 4;
      size_t p = 0;
      while (p < s.size()) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        v.push_back(std::atoi(s.substr(p, q - p).c_str()));
        p = q + 1;
      }
    }
  if (v.empty()) v = {4, 16, 64, 256};
  return v;
}

// Chain physics constants (shared by all engines).
constexpr double kG = 9.81;       // gravity, -y
constexpr double kLinkM = 1.0;    // kg
constexpr double kLinkL = 1.0;    // m
constexpr double kIaxial = 1e-3;  // kg m^2, inertia about the rod's own axis (thin rod ~ 0)
constexpr double kItrans = kLinkM * kLinkL * kLinkL / 12.0;  // about COM, transverse
// Energy scale for the chain: magnitude of the PE of the chain hanging straight down
// (sum_i m g (i+1/2) L = m g L N^2 / 2).
inline double chain_escale(int n) {
  return kLinkM * kG * kLinkL * n * n / 2.0;
}

// Slider-crank: crank 0.1 m (1 kg uniform bar), rod 0.3 m (1 kg uniform bar), slider 1 kg.
constexpr double kCrankL = 0.1, kRodL = 0.3, kCrankM = 1.0, kRodM = 1.0, kSliderM = 1.0;
constexpr double kCrankW0 = 100.0;  // initial crank angular velocity [rad/s], free motion

// Bouncing ball: radius 0.1 m, mass 1 kg, dropped from h0 = 1 m (bottom of ball above plane).
constexpr double kBallR = 0.1, kBallM = 1.0, kBallH0 = 1.0, kRestitution = 0.8;

// V8 engine (examples/engine_v8.yaml; one crankshaft, 8 rods, 8 pistons, 17 moving bodies, one
// degree of freedom). Crankshaft along z, hinged to ground at the origin; gravity 9.81 along -y.
// Cylinder i = 0..7: throw = i / 2, side = i % 2 (0: left bank, 1: right bank), throw phase
// kV8PhaseDeg[throw], plane z_i = throw * kV8Spacing + 0.03 * side. At t = 0 (crank angle
// kV8Crank0Deg) the crank pin is B_i = R (cos(a), sin(a), z_i), a = crank0 + phase; the cylinder
// axis is e_i = (cos(45 + 90 side), sin(45 + 90 side), 0) (deg) through the crank axis; the wrist
// pin is W_i = s_i e_i with s_i = B.e + sqrt(L^2 - (B_x e_y - B_y e_x)^2). Rod i: revolute about z
// to the crankshaft at B_i and to piston i at W_i, centre of mass at (B_i + W_i) / 2; piston i
// slides along e_i (prismatic to ground), centre of mass at W_i. Inertias are about the centres
// of mass in world axes at t = 0 (all diagonal with I_xx = I_yy, so a turn about z keeps them).
// The crank turns at kV8Rpm at t = 0 with consistent velocities (v8_initial_rates) and coasts for
// kV8T; fixed-step engines use kV8Step. Accuracy: energy drift / E0, the largest loop-closure
// error |W_rod - W_piston|, and the crank angle at the end against kV8CrankAngleRef.
constexpr double kV8Rpm = 3000, kV8Crank0Deg = 20, kV8R = 0.045, kV8L = 0.150, kV8Spacing = 0.1;
constexpr double kV8PhaseDeg[4] = {0, 90, 270, 180};
constexpr double kV8CrankM = 18, kV8CrankI[3] = {0.35, 0.35, 0.06}, kV8CrankZ = 1.5 * kV8Spacing;
constexpr double kV8RodM = 0.6, kV8RodI[3] = {2.0e-3, 2.0e-3, 2.0e-4};
constexpr double kV8PistonM = 0.45, kV8PistonI = 4.0e-4;
constexpr double kV8T = 1.0, kV8Step = 1e-4;
// The crank angle at kV8T [rad]: ictus dopri5 at rtol 1e-12 and rk4 at h = 2.5e-5 agree to 4e-9.
constexpr double kV8CrankAngleRef = 314.5538601182;

// The geometry of cylinder i at t = 0 (see above).
struct V8Cylinder {
  double z, B[2], e[2], s, W[2];
};
inline V8Cylinder v8_cylinder(int i) {
  const double deg = M_PI / 180;
  V8Cylinder c;
  const int thr = i / 2, side = i % 2;
  c.z = thr * kV8Spacing + 0.03 * side;
  const double a = (kV8Crank0Deg + kV8PhaseDeg[thr]) * deg;
  c.B[0] = kV8R * std::cos(a);
  c.B[1] = kV8R * std::sin(a);
  c.e[0] = std::cos((45 + 90 * side) * deg);
  c.e[1] = std::sin((45 + 90 * side) * deg);
  const double cross = c.B[1] * c.e[0] - c.B[0] * c.e[1];
  c.s = c.B[0] * c.e[0] + c.B[1] * c.e[1] + std::sqrt(kV8L * kV8L - cross * cross);
  c.W[0] = c.s * c.e[0];
  c.W[1] = c.s * c.e[1];
  return c;
}
// Consistent rates of cylinder i at t = 0 for the crank rate w: the rod's absolute angular rate
// about z and the piston's speed along e (from W = B + L u: s' e - phi' L u_perp = w z x B).
struct V8Rates {
  double rod_w, piston_v;
};
inline V8Rates v8_initial_rates(int i, double w) {
  const V8Cylinder c = v8_cylinder(i);
  const double vb[2] = {-w * c.B[1], w * c.B[0]};
  const double u[2] = {(c.W[0] - c.B[0]) / kV8L, (c.W[1] - c.B[1]) / kV8L};
  const double up[2] = {-u[1] * kV8L, u[0] * kV8L};  // d(W - B)/d(phi)
  // [e, -up] [s'; phi'] = vb
  const double det = c.e[0] * (-up[1]) - (-up[0]) * c.e[1];
  const double sd = (vb[0] * (-up[1]) - (-up[0]) * vb[1]) / det;
  const double pd = (c.e[0] * vb[1] - c.e[1] * vb[0]) / det;
  return {pd, sd};
}
inline double v8_w0() {
  return kV8Rpm * 2 * M_PI / 60;
}

// Compliant piston (seed 001, examples/piston_compliant.yaml): a 2 kg piston on a guide (x), a
// spring c = 50 N/m with preload F0 = 50 N towards the stop, a push P = b t (b = 25 N/s) that is
// off for good once x >= L/2 (L = 0.5 m), and a Hunt-Crossley stop at x = 0: with the penetration
// d = -x > 0, N = ck d (1 + beta d'), ck = 1e10 N/m, beta = 0.31 s/m, clipped at N >= 0, so
//   m x'' = P - c x - F0 + N.
// Starts at rest at its static penetration x = -F0/ck; kPistonT simulated. Accuracy: each contact
// phase's start time (x falls through 0) and exit speed (x rises through 0) against the reference
// (shared/reference/REPORT.md, case 2, beta = 0.31: hybrid, DOP853 at rtol 1e-12).
constexpr double kPistonM = 2.0, kPistonC = 50, kPistonF0 = 50, kPistonB = 25, kPistonL = 0.5;
constexpr double kPistonCk = 1e10, kPistonBeta = 0.31, kPistonT = 3.42;
constexpr int kPistonRefImpacts = 10;
constexpr double kPistonRefT[kPistonRefImpacts] = {
    2.7263661594, 2.8866549157, 3.0008375566, 3.0892965753, 3.1614241184,
    3.2222849695, 3.2749120392, 3.3212621160, 3.3626700192, 3.4000864680};
constexpr double kPistonRefVout[kPistonRefImpacts] = {
    2.1175443215, 1.4667464139, 1.1235358956, 0.9109185174, 0.7661159604,
    0.6610941701, 0.5814191162, 0.5188934127, 0.4685134872, 0.4270511047};
// The piston's force law (without the spring's and the push's terms: piston_force adds them).
inline double piston_contact_force(double x, double v) {
  if (x >= 0) return 0;
  const double n = kPistonCk * (-x) * (1 + kPistonBeta * (-v));
  return n > 0 ? n : 0;
}
// The whole force on the piston at (t, x, v); `push_on` is the one-shot push's state (the caller
// turns it off for good after a step that ends with x >= L/2).
inline double piston_force(double t, double x, double v, bool push_on) {
  return (push_on ? kPistonB * t : 0) - kPistonC * x - kPistonF0 + piston_contact_force(x, v);
}

// Contact phases of the piston: feed (t, x, v) after every step (or output sample); the crossings
// of x = 0 are interpolated linearly between samples.
struct ContactPhaseDetector {
  std::vector<double> t_in, v_out;
  double prev_t = 0, prev_x = 0, prev_v = 0;
  bool first = true;
  void feed(double t, double x, double v) {
    if (!first) {
      if (prev_x >= 0 && x < 0) t_in.push_back(prev_t + (t - prev_t) * prev_x / (prev_x - x));
      if (prev_x < 0 && x >= 0 && !t_in.empty())
        v_out.push_back(prev_v + (v - prev_v) * (-prev_x) / (x - prev_x));
    }
    first = false;
    prev_t = t;
    prev_x = x;
    prev_v = v;
  }
  // "impacts=K;t1=..;vout1=..;err_t_max=..;err_vout_rel_max=.." over the first 10 phases
  std::string str() const {
    double et = 0, ev = 0;
    const int k = std::min<int>({(int)t_in.size(), (int)v_out.size(), kPistonRefImpacts});
    for (int i = 0; i < k; ++i) {
      et = std::max(et, std::abs(t_in[i] - kPistonRefT[i]));
      ev = std::max(ev, std::abs(v_out[i] - kPistonRefVout[i]) / kPistonRefVout[i]);
    }
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "impacts=%d;t1=%.9f;vout1=%.9f;err_t_max=%.3e;err_vout_rel_max=%.3e",
                  (int)t_in.size(), t_in.empty() ? NAN : t_in[0], v_out.empty() ? NAN : v_out[0],
                  k ? et : NAN, k ? ev : NAN);
    return buf;
  }
};

// Apex detector: feed (t, height, vertical velocity) each step.
struct ApexDetector {
  std::vector<double> apex_h, apex_t;
  double prev_v = 0, prev_h = 0, prev_t = 0;
  bool first = true, seen_bounce = false;
  void feed(double t, double h, double v) {
    if (!first) {
      if (prev_v < 0 && v > 0) seen_bounce = true;
      if (seen_bounce && prev_v > 0 && v <= 0) {
        // parabola through the sign change: apex ~ max of the two samples plus correction
        double hh = std::max(prev_h, h);
        double a = (v - prev_v) / (t - prev_t);  // ~ -g
        if (a < 0) {
          double tau = -prev_v / a;  // time after prev sample where v=0
          hh = prev_h + prev_v * tau + 0.5 * a * tau * tau;
        }
        apex_h.push_back(hh);
        apex_t.push_back(prev_t - prev_v / a);
        seen_bounce = false;
      }
    }
    first = false;
    prev_v = v;
    prev_h = h;
    prev_t = t;
  }
  std::string str(int k = 5) const {
    std::string s;
    char buf[128];
    for (int i = 0; i < k && i < (int)apex_h.size(); ++i) {
      double ana = kBallH0 * std::pow(kRestitution, 2 * (i + 1));
      std::snprintf(buf, sizeof buf, "%sh%d=%.5f(ana %.5f)", i ? ";" : "", i + 1, apex_h[i], ana);
      s += buf;
    }
    std::snprintf(buf, sizeof buf, ";napex=%d", (int)apex_h.size());
    s += buf;
    return s;
  }
};

}  // namespace bench
