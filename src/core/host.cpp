#include "core/host.hpp"

#include <mutex>

namespace kprof {

namespace {
std::mutex g_host_mu;
Host* g_host = new Host();  // leaked on purpose: read by threads until _Exit
}  // namespace

Host current_host() {
  std::lock_guard<std::mutex> lock(g_host_mu);
  return *g_host;
}

void set_host(Host h) {
  std::lock_guard<std::mutex> lock(g_host_mu);
  *g_host = std::move(h);
}

}  // namespace kprof
