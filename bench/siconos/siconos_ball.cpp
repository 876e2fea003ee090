// Siconos 4.4's Moreau-Jean bouncing ball (its canonical example: a
// LagrangianLinearTIDS with a LagrangianLinearTIR gap and NewtonImpactNSL,
// MoreauJeanOSI, LCP one-step problem) on the model of bench/ball_to_rest.cpp:
// R = 0.1 m, 1 kg, gap 1 m, e = 0.8, 10 s. Prints the first five apex
// heights (the same rule as ictus_ball_bench) and the CPU time per run.
// Not part of the ictus build: bench/siconos/build.sh installs Siconos and
// compiles it.
//   siconos_ball STEP THETA [repeats]
#include <SiconosKernel.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace {

constexpr double kG = 9.81, kH0 = 1.0, kE = 0.8, kR = 0.1, kM = 1.0;

struct Ball {
  SP::LagrangianLinearTIDS body;
  SP::TimeStepping simulation;
};

// Coordinates (y, x, angle); the gap is y - R.
Ball build(double step, double theta) {
  Ball b;
  SP::SiconosMatrix mass(new SimpleMatrix(3, 3));
  (*mass)(0, 0) = kM;
  (*mass)(1, 1) = kM;
  (*mass)(2, 2) = 0.4 * kM * kR * kR;
  SP::SiconosVector q0(new SiconosVector(3)), v0(new SiconosVector(3));
  q0->zero();
  v0->zero();
  (*q0)(0) = kH0 + kR;
  b.body.reset(new LagrangianLinearTIDS(q0, v0, mass));
  SP::SiconosVector weight(new SiconosVector(3));
  weight->zero();
  (*weight)(0) = -kM * kG;
  b.body->setFExtPtr(weight);
  SP::SimpleMatrix H(new SimpleMatrix(1, 3));
  H->zero();
  (*H)(0, 0) = 1.0;
  SP::SiconosVector offset(new SiconosVector(1));
  (*offset)(0) = -kR;
  SP::Interaction contact(new Interaction(SP::NonSmoothLaw(new NewtonImpactNSL(kE)),
                                          SP::Relation(new LagrangianLinearTIR(H, offset))));
  SP::NonSmoothDynamicalSystem system(new NonSmoothDynamicalSystem(0.0, 10.0));
  system->insertDynamicalSystem(b.body);
  system->link(contact, b.body);
  SP::TimeDiscretisation grid(new TimeDiscretisation(0.0, step));
  b.simulation.reset(new TimeStepping(system, grid, SP::MoreauJeanOSI(new MoreauJeanOSI(theta)),
                                      SP::OneStepNSProblem(new LCP())));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const double step = argc > 1 ? std::atof(argv[1]) : 1e-3;
  const double theta = argc > 2 ? std::atof(argv[2]) : 0.5;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 1;
  std::vector<double> apexes;
  long steps = 0;
  const std::clock_t start = std::clock();
  for (int r = 0; r < repeats; ++r) {
    Ball b = build(step, theta);
    double gap_before = 0.0, rate_before = 0.0;
    steps = 0;
    while (b.simulation->hasNextEvent()) {
      b.simulation->computeOneStep();
      b.simulation->nextStep();
      ++steps;
      if (r > 0) continue;
      const double gap = (*b.body->q())(0) - kR;
      const double rate = (*b.body->velocity())(0);
      if (rate_before > 0.0 && rate <= 0.0 && apexes.size() < 5)
        apexes.push_back(gap_before + rate_before * rate_before / (2.0 * kG));
      gap_before = gap;
      rate_before = rate;
    }
  }
  const double cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC / repeats;
  double worst = 0.0;
  std::printf("siconos moreau_jean step %g theta %g: apexes", step, theta);
  for (std::size_t n = 0; n < apexes.size(); ++n) {
    const double exact = kH0 * std::pow(kE, 2.0 * static_cast<double>(n + 1));
    worst = std::max(worst, std::abs(apexes[n] - exact));
    std::printf(" %.5f", apexes[n]);
  }
  std::printf(" max error %.2e m, %ld steps, cpu %.3g ms/run\n", worst, steps, 1e3 * cpu);
  return 0;
}
