// core/forward_ad.cpp - dual levels and tangents.
/// \file
/// A tangent is stored with the id of the level it was set in; it counts only
/// while that level is the active one, so leaving a level needs no walk over
/// the tensors that got tangents in it.
#include "wick/forward_ad.h"

#include <atomic>

#include "core/autograd/autograd_meta.h"
#include "wick/tensor_util.h"

namespace wick::autograd {
namespace {
std::atomic<std::uint64_t> g_current_level{0};
std::atomic<std::uint64_t> g_next_level{1};
}  // namespace

std::uint64_t current_dual_level() noexcept { return g_current_level.load(std::memory_order_acquire); }

Tensor fw_grad_of(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (m == nullptr || !m->fw_grad.defined()) return {};
  const std::uint64_t level = current_dual_level();
  if (level == 0 || m->fw_level != level) return {};
  return m->fw_grad;
}

void set_fw_grad(const Tensor& t, const Tensor& tangent) {
  AutogradMeta& m = t.impl()->ensure_autograd_meta();
  if (!tangent.defined() || !is_differentiable_type(t.dtype())) {
    m.fw_grad = Tensor();
  } else {
    WICK_CHECK(!is_complex(t.dtype()) && !is_complex(tangent.dtype()), NotImplementedError,
               "forward-mode AD of complex tensors is not implemented (a tangent of dtype ", dtype_name(tangent.dtype()),
               " for a tensor of dtype ", dtype_name(t.dtype()), "); backward mode differentiates them");
    Tensor g = tangent;
    if (g.sizes() != t.sizes()) g = g.expand(t.sizes());
    if (g.dtype() != t.dtype()) g = g.to(t.dtype());
    m.fw_grad = g;
    m.fw_level = current_dual_level();
  }
  sync_autograd_key(*t.impl());
}

namespace forward_ad {

dual_level::dual_level() : id_(g_next_level.fetch_add(1)) {
  std::uint64_t expected = 0;
  WICK_CHECK(g_current_level.compare_exchange_strong(expected, id_), RuntimeError,
             "Nested forward mode AD is not supported at the moment");
}

dual_level::~dual_level() { g_current_level.store(0, std::memory_order_release); }

bool is_active() noexcept { return current_dual_level() != 0; }

Tensor make_dual(const Tensor& primal, const Tensor& tangent) {
  WICK_CHECK(is_active(), RuntimeError,
             "make_dual: no dual level is active; enter one with wick::autograd::forward_ad::dual_level");
  WICK_CHECK(primal.defined() && tangent.defined(), RuntimeError, "make_dual: primal and tangent must be defined");
  WICK_CHECK(tangent.sizes() == primal.sizes(), RuntimeError,
             "make_dual: expected tangent to have the same shape as primal, but got tangent of shape ",
             format_shape(tangent.sizes()), " and primal of shape ", format_shape(primal.sizes()));
  WICK_CHECK(is_differentiable_type(primal.dtype()), RuntimeError,
             "make_dual: expected primal to be floating point, but got ", dtype_name(primal.dtype()));
  // An alias that keeps the primal's backward history, with the new tangent.
  Tensor dual = primal.view(primal.sizes());
  set_fw_grad(dual, tangent.detach());
  return dual;
}

UnpackedDual unpack_dual(const Tensor& t) {
  Tensor tangent = fw_grad_of(t);
  if (!tangent.defined()) return {t, {}};
  Tensor primal = t.view(t.sizes());
  set_fw_grad(primal, Tensor());
  return {primal, tangent};
}

Tensor tangent_of(const Tensor& t) { return fw_grad_of(t); }

}  // namespace forward_ad
}  // namespace wick::autograd
