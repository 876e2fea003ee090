// An ictus built without MPI (ICTUS_MPI=OFF, or no libopenmpi-dev) started
// by mpirun: every rank would run the whole sweep into the same files.
#include <fmt/format.h>

#include "../exit_status.h"
#include "sweep_plan.h"

namespace ictus::cli {

int command_sweep_mpi(const StudyCommandOptions& /*options*/) {
  fmt::print(stderr,
             "error: this ictus was built without MPI (configure with -DICTUS_MPI=ON and "
             "libopenmpi-dev installed); run `ictus sweep` without mpirun to use the threads "
             "of one machine\n");
  return kExitRefused;
}

}  // namespace ictus::cli
