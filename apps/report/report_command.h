// `ictus report DIR`: writes report.html into the output directory of an
// earlier run (docs/report.md).
#pragma once

#include <string>

namespace ictus::cli {

struct ReportOptions {
  std::string directory;
};

/// Returns the exit status (exit_status.h): 2 for a directory that is not a
/// run's, a model file that cannot be read, or a build without the report.
int command_report(const ReportOptions& options);

}  // namespace ictus::cli
