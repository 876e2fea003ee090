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
