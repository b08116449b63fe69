#include "device/cupti_version.hpp"

#include <cupti_version.h>
#include <dlfcn.h>
#include <fmt/format.h>

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
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) == 0 || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace kprof
