// SIGINT and SIGTERM during `ictus run`: the first one sets a flag that the
// Simulation checks at every step (Simulation::set_interrupt_flag), so that
// the run stops, writes its incomplete set and exits 128 + the signal; a
// second one ends the process at once (the default action). SIGXFSZ is
// ignored, so that a file size limit (ulimit -f) fails a write with EFBIG
// instead of killing the process before it can say so.
#pragma once

#include <atomic>

namespace ictus::cli {

/// Installs the handlers (once per process).
void install_interruption_handlers();
/// Set by the first SIGINT or SIGTERM.
const std::atomic<bool>& interruption_flag();
/// The signal that set the flag (0 if none).
int interruption_signal();

}  // namespace ictus::cli
