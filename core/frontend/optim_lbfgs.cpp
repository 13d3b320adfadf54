// core/frontend/optim_lbfgs.cpp - optim::LBFGS and its strong-Wolfe line search.
/// \file
/// PyTorch 1.13's torch.optim.LBFGS, step by step: the parameters are seen
/// as one flat vector; the scalars PyTorch keeps in 0-dim tensors (y.s,
/// H_diag, the step t, the directional derivatives) are doubles here, which
/// for float64 parameters is the same arithmetic.
///
/// Note [LBFGS keeps its state in ParamState]
/// The history lives in the first parameter's ParamState, as PyTorch keeps
/// it in optimizer.state[params[0]], so state() and state_dict() see it:
/// tensors "d", "H_diag", "prev_flat_grad", "old_dirs.<k>", "old_stps.<k>",
/// and numbers as 0-dim float64 tensors ("func_evals", "n_iter", "t",
/// "prev_loss", "ro.<k>"). step() reads it at the start and writes it back
/// at the end.
#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "core/frontend/optim_util.h"
#include "wick/autograd.h"
#include "wick/checked.h"
#include "wick/optim.h"

namespace wick::optim {
namespace {

using Bounds = std::optional<std::pair<double, double>>;

// The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to the bounds.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2, Bounds bounds = {}) {
  const auto [lo, hi] = bounds ? *bounds : (x1 <= x2 ? std::pair{x1, x2} : std::pair{x2, x1});
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(min_pos, lo), hi);
  }
  return (lo + hi) / 2.;
}

double number(const Tensor& t) { return t.item<double>(); }
Tensor as_tensor(double v) { return full({}, v, ScalarType::kFloat64); }

struct Evaluation {
  double loss;
  Tensor flat_grad;
};

struct LineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  std::int64_t func_evals;
};

// The strong-Wolfe line search (PyTorch's _strong_wolfe, after minFunc).
template <class Objective>
LineSearchResult strong_wolfe(Objective&& obj, double t, const Tensor& d, double f, const Tensor& g, double gtd,
                              double tolerance_change) {
  constexpr double kC1 = 1e-4;
  constexpr double kC2 = 0.9;
  constexpr int kMaxLs = 25;
  const double d_norm = number(d.abs().max());
  Evaluation e = obj(t);
  double f_new = e.loss;
  Tensor g_new = e.flat_grad;
  std::int64_t ls_func_evals = 1;
  double gtd_new = number(g_new.dot(d));
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g.clone();
  bool done = false;
  int ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < kMaxLs) {
    if (f_new > (f + kC1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -kC2 * gtd) {
      bracket = {t}, bracket_f = {f_new}, bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair{min_step, max_step});
    t_prev = tmp, f_prev = f_new, g_prev = g_new.clone(), gtd_prev = gtd_new;
    e = obj(t);
    f_new = e.loss, g_new = e.flat_grad;
    ls_func_evals += 1;
    gtd_new = number(g_new.dot(d));
    ls_iter += 1;
  }
  if (ls_iter == kMaxLs) bracket = {0, t}, bracket_f = {f, f_new}, bracket_g = {g, g_new};

  // Zoom: shrink the bracket until a point satisfies the conditions.
  bool insuf_progress = false;
  std::size_t low = bracket_f[0] <= bracket_f.back() ? 0 : 1;
  std::size_t high = 1 - low;
  while (!done && ls_iter < kMaxLs) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    const double b_max = std::max(bracket[0], bracket[1]);
    const double b_min = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (b_max - b_min);
    if (std::min(b_max - t, t - b_min) < eps) {
      if (insuf_progress || t >= b_max || t <= b_min) {
        t = std::abs(t - b_max) < std::abs(t - b_min) ? b_max - eps : b_min + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    e = obj(t);
    f_new = e.loss, g_new = e.flat_grad;
    ls_func_evals += 1;
    gtd_new = number(g_new.dot(d));
    ls_iter += 1;
    if (f_new > (f + kC1 * t * gtd) || f_new >= bracket_f[low]) {
      bracket[high] = t, bracket_f[high] = f_new, bracket_g[high] = g_new.clone(), bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -kC2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low], bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low], bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t, bracket_f[low] = f_new, bracket_g[low] = g_new.clone(), bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], ls_func_evals};
}

// A number kept in the state, or `fallback`.
double state_number(const ParamState& st, const char* name, double fallback) {
  return st.contains(name) ? number(st.at(name)) : fallback;
}

std::deque<Tensor> state_list(const ParamState& st, const std::string& name) {
  std::deque<Tensor> out;
  while (st.contains(name + "." + std::to_string(out.size())))
    out.push_back(st.at(name + "." + std::to_string(out.size())));
  return out;
}

}  // namespace

void check_options(const LBFGSOptions& /*options*/) {}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions options)
    : LBFGS(std::vector<ParamGroupSpec>{{std::move(params)}}, options) {}
LBFGS::LBFGS(std::initializer_list<ParamGroupSpec> groups, LBFGSOptions options)
    : LBFGS(std::vector<ParamGroupSpec>(groups), options) {}
LBFGS::LBFGS(std::vector<ParamGroupSpec> groups, LBFGSOptions options)
    : OptimizerWith(std::move(groups), options) {
  WICK_CHECK(groups_.size() == 1, ValueError, "LBFGS doesn't support per-parameter options (parameter groups)");
  WICK_CHECK(!groups_[0].params.empty(), ValueError, "optimizer got an empty parameter list");
  if (!defaults_.max_eval) {
    defaults_.max_eval = checked_mul(defaults_.max_iter, 5, "max_iter * 5") / 4;
    if (!groups_[0].options.max_eval) groups_[0].options.max_eval = defaults_.max_eval;
  }
}

void LBFGS::update() {}

bool LBFGS::state_has_param_shape(std::string_view /*name*/) const { return false; }

Tensor LBFGS::run_step(const Closure& closure) {
  WICK_CHECK(static_cast<bool>(closure), TypeError, "step() missing 1 required positional argument: 'closure'");
  WICK_CHECK(groups_.size() == 1, ValueError, "LBFGS doesn't support per-parameter options (parameter groups)");
  NoGradGuard no_grad;
  const std::vector<Tensor>& params = groups_[0].params;
  const LBFGSOptions o = groups_[0].options;
  const std::int64_t max_eval = o.max_eval ? *o.max_eval : checked_mul(o.max_iter, 5, "max_iter * 5") / 4;
  if (o.line_search_fn) {
    WICK_CHECK(*o.line_search_fn == "strong_wolfe", RuntimeError, "only 'strong_wolfe' is supported");
  }
  auto evaluate = [&] {
    EnableGradGuard grad_on;
    return closure();
  };
  auto gather_flat_grad = [&] {
    std::vector<Tensor> views;
    for (const Tensor& p : params) {
      const Tensor g = p.grad();
      views.push_back(g.defined() ? g.reshape({-1}) : zeros({p.numel()}, p.scalar_type(), p.device()));
    }
    return cat(views, 0);
  };
  auto add_grad = [&](double step_size, const Tensor& update) {
    std::int64_t offset = 0;
    for (const Tensor& p : params) {
      Tensor(p).add_(update.narrow(0, offset, p.numel()).view_as(p), step_size);
      offset += p.numel();
    }
  };

  ParamState& state = state_of(params[0]);
  auto func_evals = static_cast<std::int64_t>(state_number(state, "func_evals", 0));
  auto state_n_iter = static_cast<std::int64_t>(state_number(state, "n_iter", 0));
  const Tensor orig_loss = evaluate();
  double loss = number(orig_loss);
  std::int64_t current_evals = 1;
  func_evals += 1;
  state.set("func_evals", as_tensor(static_cast<double>(func_evals)));
  state.set("n_iter", as_tensor(static_cast<double>(state_n_iter)));
  Tensor flat_grad = gather_flat_grad();
  if (number(flat_grad.abs().max()) <= o.tolerance_grad) return orig_loss;

  Tensor d = state.contains("d") ? state.at("d") : Tensor();
  double t = state_number(state, "t", 0);
  std::deque<Tensor> old_dirs = state_list(state, "old_dirs");
  std::deque<Tensor> old_stps = state_list(state, "old_stps");
  std::deque<double> ro;
  for (const Tensor& r : state_list(state, "ro")) ro.push_back(number(r));
  double h_diag = state_number(state, "H_diag", 1);
  Tensor prev_flat_grad = state.contains("prev_flat_grad") ? state.at("prev_flat_grad") : Tensor();
  double prev_loss = state_number(state, "prev_loss", 0);

  std::int64_t n_iter = 0;
  while (n_iter < o.max_iter) {
    n_iter += 1;
    state_n_iter += 1;
    if (state_n_iter == 1) {
      d = flat_grad.neg();
      old_dirs.clear(), old_stps.clear(), ro.clear();
      h_diag = 1;
    } else {
      // Update the curvature pairs, then the two-loop recursion for d = -H g.
      const Tensor y = flat_grad.sub(prev_flat_grad);
      const Tensor s = d.mul(t);
      const double ys = number(y.dot(s));
      if (ys > 1e-10) {
        if (static_cast<std::int64_t>(old_dirs.size()) == o.history_size) {
          old_dirs.pop_front(), old_stps.pop_front(), ro.pop_front();
        }
        old_dirs.push_back(y), old_stps.push_back(s), ro.push_back(1. / ys);
        h_diag = ys / number(y.dot(y));
      }
      const std::size_t num_old = old_dirs.size();
      std::vector<double> al(num_old);
      Tensor q = flat_grad.neg();
      for (std::size_t i = num_old; i-- > 0;) {
        al[i] = number(old_stps[i].dot(q)) * ro[i];
        q.add_(old_dirs[i], -al[i]);
      }
      d = q.mul(h_diag);
      for (std::size_t i = 0; i < num_old; ++i) {
        const double be_i = number(old_dirs[i].dot(d)) * ro[i];
        d.add_(old_stps[i], al[i] - be_i);
      }
    }
    if (!prev_flat_grad.defined()) {
      prev_flat_grad = flat_grad.clone();
    } else {
      prev_flat_grad.copy_(flat_grad);
    }
    prev_loss = loss;
    t = state_n_iter == 1 ? std::min(1., 1. / number(flat_grad.abs().sum())) * o.lr : o.lr;
    const double gtd = number(flat_grad.dot(d));
    if (gtd > -o.tolerance_change) break;

    std::int64_t ls_func_evals = 0;
    bool opt_cond = false;
    if (o.line_search_fn) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : params) x_init.push_back(p.clone());
      auto objective = [&](double step) {
        add_grad(step, d);
        const double f = number(evaluate());
        Tensor g = gather_flat_grad();
        for (std::size_t i = 0; i < params.size(); ++i) Tensor(params[i]).copy_(x_init[i]);
        return Evaluation{f, g};
      };
      LineSearchResult r = strong_wolfe(objective, t, d, loss, flat_grad, gtd, o.tolerance_change);
      loss = r.loss, flat_grad = r.flat_grad, t = r.t, ls_func_evals = r.func_evals;
      add_grad(t, d);
      opt_cond = number(flat_grad.abs().max()) <= o.tolerance_grad;
    } else {
      add_grad(t, d);
      if (n_iter != o.max_iter) {
        loss = number(evaluate());
        flat_grad = gather_flat_grad();
        opt_cond = number(flat_grad.abs().max()) <= o.tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    func_evals += ls_func_evals;
    if (n_iter == o.max_iter || current_evals >= max_eval || opt_cond) break;
    if (number(d.mul(t).abs().max()) <= o.tolerance_change) break;
    if (std::abs(loss - prev_loss) < o.tolerance_change) break;
  }

  // Write the history back (Note [LBFGS keeps its state in ParamState]).
  ParamState out;
  out.set("func_evals", as_tensor(static_cast<double>(func_evals)));
  out.set("n_iter", as_tensor(static_cast<double>(state_n_iter)));
  if (d.defined()) out.set("d", d);
  out.set("t", as_tensor(t));
  for (std::size_t i = 0; i < old_dirs.size(); ++i) {
    out.set("old_dirs." + std::to_string(i), old_dirs[i]);
    out.set("old_stps." + std::to_string(i), old_stps[i]);
    out.set("ro." + std::to_string(i), as_tensor(ro[i]));
  }
  out.set("H_diag", as_tensor(h_diag));
  if (prev_flat_grad.defined()) out.set("prev_flat_grad", prev_flat_grad);
  out.set("prev_loss", as_tensor(prev_loss));
  state = std::move(out);
  return orig_loss;
}

}  // namespace wick::optim
