// What the CVODE and IDA steppers share (internal to src/steppers).
#pragma once

#include <array>
#include <exception>
#include <string>
#include <string_view>

#include "ictus/mechanical_system.h"
#include "ictus/state_layout.h"
#include "ictus/stepper.h"

namespace ictus::internal {

/// Receives SUNDIALS' error and warning messages instead of stderr (CVODE
/// guide sec. 4.5.2, "CVodeSetErrHandlerFn"; IDA guide sec. 4.5.8.1). Copies
/// into a fixed buffer: a warning inside the step loop must not allocate.
class SundialsMessages {
 public:
  /// Signature of CVErrHandlerFn and IDAErrHandlerFn; `data` is this object.
  static void handler(int code, const char* module, const char* function, char* message,
                      void* data);
  void clear() { text_[0] = '\0'; }
  /// The last message, "" if none.
  std::string_view last() const { return text_.data(); }

 private:
  std::array<char, 512> text_{};
};

/// Rejects options the SUNDIALS steppers cannot use (std::invalid_argument).
void check_sundials_options(std::string_view stepper, const StepperOptions& options);

/// Divides each quaternion of the state at `y` by its norm. Only for the
/// states handed out (Stepper::y(), interpolate()), never for the solver's own.
void normalize_quaternions(const StateLayout& layout, double* y);

/// The Jacobian J = dF/dy of the first-order form y' = F(t, y) over the
/// positions and velocities (13 per body; no audit entries), from the
/// mechanical Jacobians A_q (per position increment [dp, dtheta_B]) and A_v:
///   d p'/d v_W     = I
///   d q'/d q       = R(w)/2, d q'/d w = L(q) [0; I]/2   (q' = q (x) (0, w)/2)
///   d v'/d p       = A_q[:, dp]
///   d v'/d q       = A_q[:, dtheta] * 2 [-q_v, q_w I - [q_v]x]   (dtheta = 2 vec(q^* (x) dq))
///   d v'/d v       = A_v
/// The last but one is the chain rule through the tangent increment: a
/// change of |q| does not rotate the body, so it moves no acceleration.
void first_order_jacobian(const StateLayout& layout, const VecX& y, const MatX& A_q,
                          const MatX& A_v, Eigen::Ref<MatX> J);

/// Runs f(), turning any exception into SUNDIALS' "recoverable failure" (1):
/// an exception must not unwind through the C library. The exception is
/// kept in `pending` so that the stepper can rethrow it if SUNDIALS gives up.
template <class F>
int guarded(std::exception_ptr& pending, F&& f) noexcept {
  try {
    return f();
  } catch (...) {
    pending = std::current_exception();
    return 1;
  }
}

}  // namespace ictus::internal
