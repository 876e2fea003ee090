// The front end of report.html (report/ in the source tree: uPlot and
// three.js bundled by esbuild), compiled into the binary when the build found
// Node.js and npm (CMake option ICTUS_REPORT).
#pragma once

#include <string>

namespace ictus::cli {

/// False when this ictus was built without the front end.
bool report_available();
/// The bundled script and style sheet (empty when !report_available()).
std::string report_script();
std::string report_style();

/// The message for `--report` / `ictus report` in a build without it.
inline const char* report_unavailable_message() {
  return "this ictus was built without the HTML report: it needs Node.js and npm when ictus is "
         "built. Install them (Debian: apt-get install nodejs npm), then configure again with "
         "-DICTUS_REPORT=ON and build (docs/report.md)";
}

}  // namespace ictus::cli
