#pragma once

namespace ictus::cli {
inline constexpr const char* kVersion = "0.1.0";
}
