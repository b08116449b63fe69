#include "sim/fake_gpu.hpp"

#include <algorithm>
#include <cmath>

namespace kprof::sim {

namespace {
constexpr unsigned kFastMhz = 1980;  ///< the H200's maximum SM clock
/// The SM clock, in NVML's 15 MHz steps, of a GPU slower than the fastest by `slow` (fraction).
unsigned mhz_of(double slow) { return static_cast<unsigned>(std::lround(kFastMhz / (1 + slow) / 15.0) * 15); }
}  // namespace

std::vector<Model> standard_models() {
  std::vector<Model> v;
  auto add = [&](Model m) {
    m.between_sd = m.between_sd > 0 ? m.between_sd : 0.015;
    v.push_back(m);
  };
  Model g;
  g.name = "gauss 0.3%";
  g.white_sd = 0.003;
  add(g);
  g.name = "gauss 1%";
  g.white_sd = 0.01;
  add(g);
  g.name = "gauss 3%";
  g.white_sd = 0.03;
  add(g);
  Model h;
  h.name = "heavy tail (t3 x 1%)";
  h.t3_scale = 0.01;
  add(h);
  Model s;
  s.name = "two clock states 5%";
  s.white_sd = 0.005;
  s.states_gap = 0.05;
  s.states_dwell = 200;
  add(s);
  Model a;
  a.name = "AR(1) rho 0.9";
  a.white_sd = 0.005;
  a.ar_rho = 0.9;
  a.ar_sd = 0.01;
  add(a);
  a.name = "AR(1) rho 0.99";
  a.ar_rho = 0.99;
  add(a);
  Model st;
  st.name = "5% clock step";
  st.white_sd = 0.005;
  st.step = 0.05;
  add(st);
  Model r;
  r.name = "10% ramp";
  r.white_sd = 0.005;
  r.ramp = 0.10;
  add(r);
  Model o;
  o.name = "10x outliers (2%)";
  o.white_sd = 0.01;
  o.outlier_p = 0.02;
  add(o);
  Model b;
  b.name = "runs in 2 clock states";
  b.white_sd = 0.01;
  b.run_state_gap = 0.05;
  add(b);
  return v;
}

FakeGpu::FakeGpu(const Model& m, double horizon_s, uint64_t seed) : m_(m), horizon_(horizon_s), rng_(seed) {
  std::normal_distribution<double> n01(0, 1);
  level_ = std::exp(m_.between_sd * n01(rng_));
  if (m_.run_state_gap > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < 0.5) {
    level_ *= 1 + m_.run_state_gap;
    mhz_ = min_mhz_ = mhz_of(m_.run_state_gap);
  }
  if (m_.ar_rho > 0) ar_ = m_.ar_sd * n01(rng_);
  if (m_.states_gap > 0) slow_ = std::uniform_real_distribution<double>(0, 1)(rng_) < 0.5;
}

double FakeGpu::call(double base_ms) {
  std::normal_distribution<double> n01(0, 1);
  double log_f = 0;
  if (m_.white_sd > 0) log_f += m_.white_sd * n01(rng_);
  if (m_.t3_scale > 0) log_f += m_.t3_scale * std::student_t_distribution<double>(3)(rng_);
  if (m_.ar_rho > 0) {
    ar_ = m_.ar_rho * ar_ + std::sqrt(1 - m_.ar_rho * m_.ar_rho) * m_.ar_sd * n01(rng_);
    log_f += ar_;
  }
  double slow = m_.run_state_gap > 0 && mhz_ != kFastMhz ? m_.run_state_gap : 0;
  if (m_.states_gap > 0) {
    if (std::uniform_real_distribution<double>(0, 1)(rng_) < 1 / m_.states_dwell) slow_ = !slow_;
    slow = slow_ ? m_.states_gap : 0;
  }
  if (m_.step > 0 && now_ >= horizon_ / 2) slow = m_.step;
  if (m_.ramp > 0) slow = m_.ramp * std::min(1.0, now_ / horizon_);
  double ms = base_ms * level_ * std::exp(log_f);
  if (m_.states_gap > 0 || m_.step > 0 || m_.ramp > 0) ms *= 1 + slow;
  if (m_.outlier_p > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < m_.outlier_p) ms *= m_.outlier_x;
  mhz_ = m_.run_state_gap > 0 ? mhz_ : mhz_of(slow);
  min_mhz_ = std::min(min_mhz_, mhz_);
  now_ += (ms + 1.0) / 1000;
  return ms;
}

unsigned FakeGpu::take_min_mhz() {
  const unsigned m = min_mhz_;
  min_mhz_ = mhz_;
  return m;
}

uint64_t cell_seed(uint64_t base, uint64_t a, uint64_t b, uint64_t c, uint64_t rep) {
  uint64_t x = base;
  for (uint64_t v : {a, b, c, rep}) {
    x += 0x9e3779b97f4a7c15ULL + v;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
  }
  return x;
}

}  // namespace kprof::sim
