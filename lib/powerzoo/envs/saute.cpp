// Sauté wrapper: budget-augmented observation and the unsafe-reward rule (Sootla et al. 2022,
// arXiv:2202.06558; PowerZooJax's SauteWrapper in powerzoojax/rl/wrappers.py).
#include "powerzoo/envs/saute.hpp"

#include <cmath>

#include "powerzoo/core/error.hpp"

namespace pz::envs {

namespace {
struct SauteState : State {
  std::unique_ptr<State> base;
  std::vector<double> c_ep;  ///< running episode cost per selected channel
};

const SauteState& cast(const State& s) { return static_cast<const SauteState&>(s); }
SauteState& cast(State& s) { return static_cast<SauteState&>(s); }
}  // namespace

SauteEnv::SauteEnv(std::shared_ptr<const Env> base, std::vector<int> channels,
                   std::vector<double> budgets, int horizon, double unsafe_reward,
                   bool reward_shaping)
    : base_(std::move(base)),
      channels_(std::move(channels)),
      budgets_(std::move(budgets)),
      horizon_(horizon),
      unsafe_reward_(unsafe_reward),
      shaping_(reward_shaping) {
  if (!base_) throw core::ConfigError("SauteEnv: no base env");
  const EnvSpec& b = base_->spec();
  if (channels_.empty() || channels_.size() != budgets_.size())
    throw core::ConfigError("SauteEnv: expected one budget per selected cost channel (>= 1)");
  for (size_t c = 0; c < channels_.size(); ++c) {
    if (channels_[c] < 0 || channels_[c] >= static_cast<int>(b.cost_names.size()))
      throw core::ConfigError("SauteEnv: cost channel index " + std::to_string(channels_[c]) +
                              " out of range for env " + b.id);
    if (!(budgets_[c] > 0) || !std::isfinite(budgets_[c]))
      throw core::ConfigError("SauteEnv: budgets must be finite and > 0 (channel " +
                              b.cost_names[channels_[c]] + ")");
  }
  if (horizon_ <= 0) horizon_ = b.horizon > 0 ? b.horizon : 48;
  spec_ = b;
  spec_.id = b.id + "+saute";
  spec_.obs_dim = b.obs_dim + static_cast<int>(channels_.size());
  spec_.obs_fields.push_back(
      ObsField{"budget_remaining", Slice{b.obs_dim, static_cast<int>(channels_.size())}});
}

std::unique_ptr<State> SauteEnv::make_state() const {
  auto s = std::make_unique<SauteState>();
  s->base = base_->make_state();
  s->c_ep.assign(channels_.size(), 0.0);
  return s;
}

void SauteEnv::write_z(const std::vector<double>& c_ep, std::span<float> obs) const {
  const size_t off = static_cast<size_t>(base_->spec().obs_dim);
  for (size_t c = 0; c < channels_.size(); ++c)
    obs[off + c] = static_cast<float>((budgets_[c] - c_ep[c]) / horizon_);
}

void SauteEnv::reset(State& s, core::Rng& rng, std::span<float> obs,
                     const ResetOptions& opt) const {
  SauteState& st = cast(s);
  base_->reset(*st.base, rng, obs.first(base_->spec().obs_dim), opt);
  std::fill(st.c_ep.begin(), st.c_ep.end(), 0.0);
  write_z(st.c_ep, obs);
}

Step SauteEnv::step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
                    std::span<float> costs, Info* info) const {
  SauteState& st = cast(s);
  Step r = base_->step(*st.base, action, rng, obs.first(base_->spec().obs_dim), costs, info);
  bool unsafe = false;
  for (size_t c = 0; c < channels_.size(); ++c) {
    st.c_ep[c] += costs[channels_[c]];
    unsafe = unsafe || (budgets_[c] - st.c_ep[c]) / horizon_ <= 0.0;
  }
  write_z(st.c_ep, obs);
  if (shaping_ && unsafe) r.reward = static_cast<float>(unsafe_reward_);
  return r;
}

void SauteEnv::write_trace(const State& s, std::span<float> out) const {
  base_->write_trace(*cast(s).base, out);
}

void SauteEnv::save_state(const State& s, std::vector<double>& out) const {
  const SauteState& st = cast(s);
  base_->save_state(*st.base, out);
  out.insert(out.end(), st.c_ep.begin(), st.c_ep.end());
}

size_t SauteEnv::load_state(State& s, std::span<const double> in) const {
  SauteState& st = cast(s);
  const size_t n = base_->load_state(*st.base, in);
  const size_t k = channels_.size();
  if (in.size() < n + k)
    throw core::ConfigError("SauteEnv::load_state: state too short for " + std::to_string(k) +
                            " episode costs");
  for (size_t c = 0; c < k; ++c) st.c_ep[c] = in[n + c];
  return n + k;
}

const std::vector<double>& SauteEnv::episode_costs(const State& s) const { return cast(s).c_ep; }

}  // namespace pz::envs
