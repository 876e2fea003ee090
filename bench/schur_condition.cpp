// Seed 000's claim "the condition of D M^-1 D^T stays within 1e2-1e3 for
// 26-200 constraint rows" measured (issue 17 part 5,
// docs/experiments/papers-claims.md). For each model, at its initial state
// (the structure ictus builds when the System is made), prints the number of
// rows, how many are independent (not dropped by the geometric rank test),
// and the condition lambda_max / lambda_min of, over the independent rows,
//   S   = D M^-1 D^T                the Schur complement of the solves;
//   S_J = S scaled to S_ii = 1      (Jacobi: rows divided by sqrt(S_ii));
//   G_J = D W D^T scaled to G_ii=1  with W_b = diag(I, I / r_b^2), r_b the
//                                   body's radius of gyration
//                                   sqrt(tr J_b / (3 m_b)): the body columns
//                                   scaled by their inertia, so every body
//                                   weighs like a unit mass of its own size;
// and the geometric condition estimate `ictus check` prints.
//   build/release/bench/ictus_schur_condition [MODEL...]
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ictus/model_file.h"
#include "ictus/system.h"
#include "system_impl.h"

namespace {

// The System keeps its structure in its Impl, which the public interface
// does not give out; an explicit instantiation may name the private member
// (this bench only reads it).
using ImplPointer = std::unique_ptr<ictus::System::Impl> ictus::System::*;
ictus::System::Impl& impl_of(ictus::System& system);
template <ImplPointer Member>
struct ImplAccess {
  friend ictus::System::Impl& impl_of(ictus::System& system) { return *(system.*Member); }
};
template struct ImplAccess<&ictus::System::impl_>;

// lambda_max / lambda_min of a symmetric positive (semi)definite matrix
double condition(const Eigen::MatrixXd& a) {
  if (a.rows() == 0) return 1.0;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(a, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd& l = eig.eigenvalues();
  return l.maxCoeff() / l.minCoeff();
}

Eigen::MatrixXd jacobi_scaled(const Eigen::MatrixXd& a) {
  const Eigen::VectorXd s = a.diagonal().cwiseSqrt().cwiseInverse();
  return s.asDiagonal() * a * s.asDiagonal();
}

void measure(const std::string& path) {
  const ictus::Model model = ictus::load_model(path);
  ictus::System system(model);
  ictus::System::Impl& impl = impl_of(system);
  impl.compute_all(model.settings().start, system.initial_state());

  const int m = impl.D.rows();
  const int n = impl.n;
  std::vector<int> kept;
  for (int r = 0; r < m; ++r)
    if (impl.dropped.empty() || impl.dropped[static_cast<std::size_t>(r)] == 0) kept.push_back(r);
  const int k = static_cast<int>(kept.size());

  // dense D (k x 6n) of the independent rows
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(k, 6 * n);
  std::vector<char> used(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < k; ++i) {
    const ictus::ConstraintRow& row = impl.D.row(kept[static_cast<std::size_t>(i)]);
    const ictus::internal::RowBodies& rb = impl.D.bodies(kept[static_cast<std::size_t>(i)]);
    if (rb.base != ictus::kGround) {
      D.block<1, 6>(i, 6 * rb.base) += row.J_base.transpose();
      used[static_cast<std::size_t>(rb.base)] = 1;
    }
    if (rb.follower != ictus::kGround) {
      D.block<1, 6>(i, 6 * rb.follower) += row.J_follower.transpose();
      used[static_cast<std::size_t>(rb.follower)] = 1;
    }
  }
  // M^-1 as the engine uses it, and the inertia-free weights W
  Eigen::MatrixXd Minv = Eigen::MatrixXd::Zero(6 * n, 6 * n);
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(6 * n, 6 * n);
  double inverse_min = 1e300, inverse_max = 0.0;
  for (int b = 0; b < n; ++b) {
    const ictus::internal::InverseMass& w = impl.inverse_mass[static_cast<std::size_t>(b)];
    Minv.block<3, 3>(6 * b, 6 * b) = w.inv_mass * ictus::Mat3::Identity();
    Minv.block<3, 3>(6 * b + 3, 6 * b + 3) = w.inv_inertia;
    const ictus::Body& body = model.bodies()[static_cast<std::size_t>(b)];
    const double gyration2 = body.inertia.trace() / (3.0 * body.mass);
    W.block<3, 3>(6 * b, 6 * b) = ictus::Mat3::Identity();
    W.block<3, 3>(6 * b + 3, 6 * b + 3) = ictus::Mat3::Identity() / gyration2;
    if (used[static_cast<std::size_t>(b)] == 0) continue;
    const Eigen::SelfAdjointEigenSolver<ictus::Mat3> e(w.inv_inertia, Eigen::EigenvaluesOnly);
    inverse_min = std::min({inverse_min, w.inv_mass, e.eigenvalues().minCoeff()});
    inverse_max = std::max({inverse_max, w.inv_mass, e.eigenvalues().maxCoeff()});
  }
  const Eigen::MatrixXd S = D * Minv * D.transpose();
  const Eigen::MatrixXd G = D * W * D.transpose();
  const auto name = path.substr(path.find_last_of('/') + 1);
  fmt::print("| {} | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.3g} | {:.3g} |\n", name, m, k,
             inverse_max / inverse_min, condition(S), condition(jacobi_scaled(S)),
             condition(jacobi_scaled(G)), impl.rank.condition());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) models.emplace_back(argv[i]);
  if (models.empty())
    for (const char* file : {"docking.yaml", "engine_v8.yaml", "fairing_separation.yaml"})
      models.push_back(std::string(ICTUS_SOURCE_DIR) + "/examples/" + file);
  fmt::print(
      "| model | rows | independent | spread of M^-1 | cond S | cond S, rows scaled | "
      "cond, rows and bodies scaled | ictus check estimate |\n");
  fmt::print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const std::string& path : models) measure(path);
  return 0;
}
