// The exit statuses of the ictus command line (docs/cli.md lists them).
#pragma once

namespace ictus::cli {

enum ExitStatus : int {
  kExitOk = 0,
  kExitOther = 1,             ///< I/O (an unwritable --out, a full disk), anything else
  kExitRefused = 2,           ///< bad input, or a run refused before it starts (limits, lock)
  kExitSimulationFailed = 3,  ///< the simulation failed midway
  kExitAuditFailed = 4,       ///< completed, but the energy audit exceeds its tolerance
  kExitSignalBase = 128,      ///< interrupted by signal N: 128 + N (130 SIGINT, 143 SIGTERM)
};

}  // namespace ictus::cli
