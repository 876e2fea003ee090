#include "sundials_support.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace ictus::internal {

void SundialsMessages::handler(int /*code*/, const char* /*module*/, const char* function,
                               char* message, void* data) {
  auto& self = *static_cast<SundialsMessages*>(data);
  // "function: message", truncated to the buffer (snprintf does not allocate)
  std::snprintf(self.text_.data(), self.text_.size(), "%s: %s", function ? function : "?",
                message ? message : "");
}

void check_sundials_options(std::string_view stepper, const StepperOptions& options) {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("integrator '{}': {}", stepper, what));
  };
  if (!(options.rtol > 0.0)) bad(fmt::format("rtol must be positive, got {}", options.rtol));
  if (!(options.atol >= 0.0)) bad(fmt::format("atol must be >= 0, got {}", options.atol));
  if (!(options.max_step >= 0.0))
    bad(fmt::format("max_step must be >= 0 (0: unlimited), got {}", options.max_step));
  if (!(options.min_step >= 0.0))
    bad(fmt::format("min_step must be >= 0, got {}", options.min_step));
}

void normalize_quaternions(const StateLayout& layout, double* y) {
  for (int b = 0; b < layout.bodies; ++b) {
    double* q = y + 7 * b + 3;
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (norm > 0.0)
      for (int i = 0; i < 4; ++i) q[i] /= norm;
  }
}

void first_order_jacobian(const StateLayout& layout, const VecX& y, const MatX& A_q,
                          const MatX& A_v, Eigen::Ref<MatX> J) {
  const int nq = layout.position_size();
  const int nv = layout.velocity_size();
  J.setZero();
  for (int b = 0; b < layout.bodies; ++b) {
    const int p = 7 * b;       // position rows / columns of body b
    const int r = p + 3;       // its quaternion
    const int u = nq + 6 * b;  // its velocity rows / columns
    const double qw = y(r);
    const Vec3 qv = y.segment<3>(r + 1);
    const Vec3 w = y.segment<3>(u + 3);
    // p' = v_W
    J.block<3, 3>(p, u).setIdentity();
    // q' = q (x) (0, w)/2 = [-q_v . w; q_w w + q_v x w] / 2
    J.block<1, 3>(r, r + 1) = -0.5 * w.transpose();
    J.block<3, 1>(r + 1, r) = 0.5 * w;
    J.block<3, 3>(r + 1, r + 1) = -0.5 * skew(w);
    J.block<1, 3>(r, u + 3) = -0.5 * qv.transpose();
    J.block<3, 3>(r + 1, u + 3) = 0.5 * (qw * Mat3::Identity() + skew(qv));
    // accelerations through dtheta = 2 vec(q^* (x) dq) = G dq
    Eigen::Matrix<double, 3, 4> G;
    G.col(0) = -2.0 * qv;
    G.rightCols<3>() = 2.0 * (qw * Mat3::Identity() - skew(qv));
    J.block(nq, p, nv, 3) = A_q.middleCols(6 * b, 3);
    J.block(nq, r, nv, 4) = A_q.middleCols(6 * b + 3, 3) * G;
  }
  J.block(nq, nq, nv, nv) = A_v;
}

}  // namespace ictus::internal
