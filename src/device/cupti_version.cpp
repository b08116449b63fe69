#include "device/cupti_version.hpp"

#include <cupti_version.h>
#include <fmt/format.h>

#include "device/cupti_loader.hpp"

namespace kprof {

uint32_t cupti_api_version() {
  uint32_t v = 0;
  if (cuptiGetVersion(&v) != CUPTI_SUCCESS) return 0;
  return v;
}

std::string cupti_version_text(uint32_t v) {
  if (v == 0) return "unknown";
  return fmt::format("{}.{}", v / 10000, (v / 100) % 100);
}

std::string cupti_library_dir() {
  const std::string& path = cupti_load().path;
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace kprof
