// Built when the front end is not (ICTUS_REPORT=OFF, or Node.js/npm not found).
#include "report_assets.h"

namespace ictus::cli {

bool report_available() {
  return false;
}
std::string report_script() {
  return {};
}
std::string report_style() {
  return {};
}

}  // namespace ictus::cli
