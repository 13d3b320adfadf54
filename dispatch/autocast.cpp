// dispatch/autocast.cpp - the Autocast key: thread-local state, the guard, the cast kernel and PyTorch's lists.
/// \file
/// Note [Autocast] in wick/autocast.h says what is cast and when.
#include "wick/autocast.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/autocast_internal.h"
#include "wick/dispatch_key.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick::autocast {
namespace {

// Autocast state per device kind: [0] the CPU, [1] CUDA.
struct State {
  std::array<bool, 2> enabled{};
  std::array<ScalarType, 2> dtype{ScalarType::kBFloat16, ScalarType::kFloat16};
};
constinit thread_local State tls_state;

int slot(DeviceType device) noexcept { return device == DeviceType::kCUDA ? 1 : 0; }
bool supported(DeviceType device) noexcept { return device == DeviceType::kCPU || device == DeviceType::kCUDA; }

// The Autocast key is in the thread's included keys while autocast is on for any device.
void sync_included_key() noexcept {
  LocalDispatchKeySet& tls = tls_local_dispatch_key_set();
  const bool on = tls_state.enabled[0] || tls_state.enabled[1];
  tls.included = on ? tls.included.add(DispatchKey::kAutocast) : tls.included.remove(DispatchKey::kAutocast);
}

// PyTorch 1.13's policy lists (torch.autocast's op reference), restricted to
// wick's operators. The CPU's lists are what PyTorch 1.13's CPU autocast
// does with each operator of wick's catalog (tests/dispatch/autocast_test.cpp
// checks them); the CUDA lists are its documented ones. An alias (a method,
// a dunder, a torch.nn.functional twin) shares its operator's kernel.
struct ListEntry {
  const char* op;
  std::optional<CastPolicy> cpu;
  std::optional<CastPolicy> cuda;
};
constexpr CastPolicy kLow = CastPolicy::kLowerPrecision;
constexpr CastPolicy kF32 = CastPolicy::kFloat32;
constexpr CastPolicy kPromote = CastPolicy::kPromote;
const ListEntry kLists[] = {
    // lower precision
    {"torch.mm", kLow, kLow},
    {"torch.bmm", kLow, kLow},
    {"torch.matmul", kLow, kLow},
    {"torch.addmm", kLow, kLow},
    {"torch.mv", std::nullopt, kLow},
    {"torch.nn.functional.linear", kLow, kLow},
    {"torch.conv1d", kLow, kLow},
    {"torch.conv2d", kLow, kLow},
    {"torch.baddbmm", kLow, kLow},
    {"torch.addbmm", kLow, kLow},
    {"torch.addmv", std::nullopt, kLow},
    {"torch.addr", std::nullopt, kLow},
    {"torch.conv_transpose1d", kF32, kLow},
    {"torch.conv_transpose2d", kF32, kLow},
    // float32
    {"torch.prod", kF32, kF32},
    {"torch.prod.dim_int", kF32, kF32},
    {"torch.nn.functional.mse_loss", kF32, kF32},
    {"torch.nn.functional.l1_loss", kF32, kF32},
    {"torch.nn.functional.nll_loss", kF32, kF32},
    {"torch.nn.functional.cross_entropy", kF32, kF32},
    {"torch.nn.functional.binary_cross_entropy_with_logits", kF32, kF32},
    {"torch.binary_cross_entropy_with_logits", kF32, kF32},
    {"torch.linalg.matrix_norm", kF32, std::nullopt},
    {"torch.polar", kF32, std::nullopt},
    {"torch.view_as_complex", kF32, std::nullopt},
    {"torch.trace", kF32, std::nullopt},
    {"torch.inverse", kF32, std::nullopt},
    {"torch.linalg.inv", kF32, std::nullopt},
    {"torch.linalg.inv_ex", kF32, std::nullopt},
    {"torch.linalg.solve", kF32, std::nullopt},
    {"torch.nn.functional.binary_cross_entropy", kF32, std::nullopt},
    {"torch.cholesky", kF32, std::nullopt},
    {"torch.cholesky_solve", kF32, std::nullopt},
    {"torch.cholesky_inverse", kF32, std::nullopt},
    {"torch.linalg.cholesky_ex", kF32, std::nullopt},
    {"torch.linalg.eigh", kF32, std::nullopt},
    {"torch.linalg.eigvalsh", kF32, std::nullopt},
    {"torch.linalg.eig", kF32, std::nullopt},
    {"torch.quantile", kF32, std::nullopt},
    {"torch.quantile.scalar", kF32, std::nullopt},
    {"torch.nanquantile", kF32, std::nullopt},
    {"torch.nanquantile.scalar", kF32, std::nullopt},
    {"torch.linalg.eigvals", kF32, std::nullopt},
    {"torch.qr", kF32, std::nullopt},
    {"torch.svd", kF32, std::nullopt},
    {"torch.pinverse", kF32, std::nullopt},
    {"torch.lu_solve", kF32, std::nullopt},
    {"torch.triangular_solve", kF32, std::nullopt},
    {"torch.linalg.qr", kF32, std::nullopt},
    {"torch.linalg.svd", kF32, std::nullopt},
    {"torch.linalg.svdvals", kF32, std::nullopt},
    {"torch.linalg.matrix_rank", kF32, std::nullopt},
    {"torch.linalg.matrix_rank.tol", kF32, std::nullopt},
    {"torch.linalg.cond", kF32, std::nullopt},
    {"torch.cdist", kF32, kF32},
    {"torch.linalg.tensorinv", kF32, std::nullopt},
    {"torch.linalg.tensorsolve", kF32, std::nullopt},
    {"torch.dist", std::nullopt, kF32},
    {"torch.pow", std::nullopt, kF32},
    {"torch.Tensor.__rtruediv__", std::nullopt, kF32},
    {"torch.acos", std::nullopt, kF32},
    {"torch.asin", std::nullopt, kF32},
    {"torch.cosh", std::nullopt, kF32},
    {"torch.erfinv", std::nullopt, kF32},
    {"torch.sinh", std::nullopt, kF32},
    {"torch.tan", std::nullopt, kF32},
    {"torch.exp", std::nullopt, kF32},
    {"torch.expm1", std::nullopt, kF32},
    {"torch.log", std::nullopt, kF32},
    {"torch.log10", std::nullopt, kF32},
    {"torch.log1p", std::nullopt, kF32},
    {"torch.log2", std::nullopt, kF32},
    {"torch.reciprocal", std::nullopt, kF32},
    {"torch.rsqrt", std::nullopt, kF32},
    {"torch.cumsum", std::nullopt, kF32},
    {"torch.cumprod", std::nullopt, kF32},
    {"torch.sum", std::nullopt, kF32},
    {"torch.norm", std::nullopt, kF32},
    {"torch.softmax", std::nullopt, kF32},
    {"torch.log_softmax", std::nullopt, kF32},
    {"torch.nn.functional.softmax", std::nullopt, kF32},
    {"torch.nn.functional.log_softmax", std::nullopt, kF32},
    {"torch.nn.functional.layer_norm", std::nullopt, kF32},
    {"torch.layer_norm", std::nullopt, kF32},
    {"torch.nn.functional.group_norm", std::nullopt, kF32},
    {"torch.group_norm", std::nullopt, kF32},
    {"torch.kl_div", kF32, kF32},
    {"torch.nn.functional.kl_div", kF32, kF32},
    {"torch.hinge_embedding_loss", kF32, kF32},
    {"torch.nn.functional.hinge_embedding_loss", kF32, kF32},
    {"torch.margin_ranking_loss", kF32, kF32},
    {"torch.nn.functional.margin_ranking_loss", kF32, kF32},
    {"torch.cosine_embedding_loss", kF32, kF32},
    {"torch.nn.functional.cosine_embedding_loss", kF32, kF32},
    {"torch.poisson_nll_loss", kF32, kF32},
    {"torch.nn.functional.poisson_nll_loss", kF32, kF32},
    {"torch.triplet_margin_loss", kF32, kF32},
    {"torch.nn.functional.triplet_margin_loss", kF32, kF32},
    {"torch.nn.functional.huber_loss", kF32, std::nullopt},
    {"torch.nn.functional.smooth_l1_loss", kF32, kF32},
    {"torch.nn.functional.soft_margin_loss", kF32, kF32},
    {"torch.cosine_similarity", std::nullopt, kF32},
    {"torch.pdist", std::nullopt, kF32},
    // promote
    {"torch.dot", std::nullopt, kPromote},
    {"torch.atan2", std::nullopt, kPromote},
};

// Whether autocast may cast `t` for `device`: a floating tensor there, not float64.
bool eligible(const Tensor& t, DeviceType device) {
  return t.defined() && is_floating(t.dtype()) && t.dtype() != ScalarType::kFloat64 && t.device().type() == device;
}

template <typename Fn>
void for_each_tensor(Stack& stack, std::size_t first, Fn&& fn) {
  for (std::size_t i = first; i < stack.size(); ++i) {
    Value& v = stack[i];
    if (const Tensor* t = v.tensor_if()) {
      if (std::optional<Tensor> cast = fn(*t)) v = Value(*cast);
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> list = v.to_tensor_list();
      bool changed = false;
      for (Tensor& t : list) {
        if (std::optional<Tensor> cast = fn(t)) {
          t = *cast;
          changed = true;
        }
      }
      if (changed) v = Value(std::move(list));
    }
  }
}

class AutocastKernel final : public BoxedFunctor {
 public:
  AutocastKernel(std::optional<CastPolicy> cpu, std::optional<CastPolicy> cuda) : cpu_(cpu), cuda_(cuda) {}

  void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack& stack) override {
    const DeviceType device = ks.has(DispatchKey::kCUDA) ? DeviceType::kCUDA : DeviceType::kCPU;
    const std::optional<CastPolicy> policy = device == DeviceType::kCUDA ? cuda_ : cpu_;
    const std::size_t nargs = op.schema().arguments.size();
    WICK_INTERNAL_ASSERT(stack.size() >= nargs, "autocast: short stack for ", op.qualified_name());
    const std::size_t first = stack.size() - nargs;
    const bool device_ok = ks.has(DispatchKey::kCUDA) || ks.has(DispatchKey::kCPU);
    if (policy && device_ok && tls_state.enabled[static_cast<std::size_t>(slot(device))] &&
        !explicit_dtype(op, stack, first)) {
      const ScalarType target = target_dtype(*policy, device, stack, first);
      for_each_tensor(stack, first, [&](const Tensor& t) -> std::optional<Tensor> {
        if (!eligible(t, device) || t.dtype() == target) return std::nullopt;
        // Through the dispatcher (Tensor.to is an operator above this layer);
        // recorded by autograd, which runs below this key.
        static const auto to = find_op("torch.Tensor.to").typed<Tensor(const Tensor&, ScalarType)>();
        return to.call(t, target);
      });
    }
    // The operator and those it calls run without autocast (Note [Autocast]).
    const ExcludeDispatchKeyGuard no_autocast(DispatchKey::kAutocast);
    op.redispatch_boxed(next_keys(ks), stack);
  }

 private:
  // A call with dtype= given keeps the dtype it asked for. (Looked up per
  // call: one kernel object may serve several operators, wick::autocast::kernel.)
  static bool explicit_dtype(const OperatorHandle& op, const Stack& stack, std::size_t first) {
    const int i = op.schema().find_argument("dtype");
    return i >= 0 && !stack[first + static_cast<std::size_t>(i)].is_none();
  }

  static ScalarType target_dtype(CastPolicy policy, DeviceType device, Stack& stack, std::size_t first) {
    if (policy == CastPolicy::kLowerPrecision) return tls_state.dtype[static_cast<std::size_t>(slot(device))];
    if (policy == CastPolicy::kFloat32) return ScalarType::kFloat32;
    ScalarType widest = ScalarType::kUndefined;  // kPromote: the widest eligible dtype
    for_each_tensor(stack, first, [&](const Tensor& t) -> std::optional<Tensor> {
      if (eligible(t, device)) widest = widest == ScalarType::kUndefined ? t.dtype() : promote_types(widest, t.dtype());
      return std::nullopt;
    });
    return widest == ScalarType::kUndefined ? ScalarType::kFloat32 : widest;
  }

  std::optional<CastPolicy> cpu_;
  std::optional<CastPolicy> cuda_;
};

}  // namespace

AutocastGuard::AutocastGuard(DeviceType device, std::optional<ScalarType> dtype, bool enabled)
    : device_(device),
      was_enabled_(tls_state.enabled[static_cast<std::size_t>(slot(device))]),
      was_dtype_(tls_state.dtype[static_cast<std::size_t>(slot(device))]) {
  WICK_CHECK(supported(device), ValueError, "autocast: device type ", device_type_name(device),
             " is not supported: autocast covers cpu and cuda");
  const ScalarType t = dtype.value_or(device == DeviceType::kCUDA ? ScalarType::kFloat16 : ScalarType::kBFloat16);
  WICK_CHECK(is_reduced_floating(t), ValueError, "autocast: the lower-precision dtype must be float16 or bfloat16, ",
             "got ", dtype_name(t));
  const auto s = static_cast<std::size_t>(slot(device));
  tls_state.enabled[s] = enabled;
  tls_state.dtype[s] = t;
  sync_included_key();
}

AutocastGuard::~AutocastGuard() {
  const auto s = static_cast<std::size_t>(slot(device_));
  tls_state.enabled[s] = was_enabled_;
  tls_state.dtype[s] = was_dtype_;
  sync_included_key();
}

bool is_enabled(DeviceType device) noexcept {
  return supported(device) && tls_state.enabled[static_cast<std::size_t>(slot(device))];
}

ScalarType dtype(DeviceType device) noexcept { return tls_state.dtype[static_cast<std::size_t>(slot(device))]; }

std::optional<CastPolicy> policy(std::string_view op, DeviceType device) {
  for (const ListEntry& e : kLists)
    if (op == e.op) return device == DeviceType::kCUDA ? e.cuda : device == DeviceType::kCPU ? e.cpu : std::nullopt;
  return std::nullopt;
}

std::shared_ptr<BoxedFunctor> kernel(CastPolicy policy) { return std::make_shared<AutocastKernel>(policy, policy); }

}  // namespace wick::autocast

namespace wick {

void register_autocast_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutocast);
  for (const autocast::ListEntry& e : autocast::kLists)
    lib->impl_boxed(e.op, std::make_shared<autocast::AutocastKernel>(e.cpu, e.cuda));
  out.push_back(std::move(lib));
}

}  // namespace wick
