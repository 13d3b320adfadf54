// dispatch/composite/ctc_loss_ops.cpp - F.ctc_loss: the connectionist temporal classification loss.
/// \file
/// Note [CTC by its forward recursion]
/// The loss of a sequence is -log of the summed probability of every
/// alignment of its target to the input frames, computed with the forward
/// (alpha) recursion over the target with blanks around and between its
/// labels (l' = blank, l1, blank, l2, ..., blank; 2S + 1 states):
///   alpha[0] = lp[0, l'_0], lp[0, l'_1] (the rest impossible),
///   alpha[t, s] = lp[t, l'_s] + logsumexp(alpha[t-1, s], alpha[t-1, s-1],
///                 alpha[t-1, s-2] where l'_s is a label other than l'_{s-2}),
/// and the loss is -logsumexp(alpha[T-1, 2S], alpha[T-1, 2S-1]), T the
/// sequence's input length. All sequences of the batch step together, each
/// frozen after its own length. "Impossible" is a large negative number, not
/// -inf, so that every logsumexp and its gradient stay finite: a loss past
/// 1e29 is reported as inf, as PyTorch reports an impossible alignment, and
/// zero_infinity turns it (and its gradient) to zero. The recursion is made
/// of differentiable operators, so the gradient is autograd's (PyTorch
/// computes the same quantity with the backward recursion).
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

namespace nnf = wick::nn::functional;
using T = const Tensor&;
using I64 = std::int64_t;

constexpr double kImpossible = -1e30;

// Lengths given as ints, a list of ints or an int tensor, read on the host.
std::vector<I64> lengths_of(const char* name, const Value& v) {
  if (v.is_int()) return {v.to_int()};
  if (v.is_int_list()) return v.to_int_list();
  if (v.is_list() || v.is_tuple()) {
    std::vector<I64> out;
    for (const Value& item : v.items()) {
      WICK_CHECK(item.is_int(), TypeError, "ctc_loss(): argument '", name, "' must be a tuple of ints, but found ",
                 item.type_name(), " in it");
      out.push_back(item.to_int());
    }
    return out;
  }
  if (v.is_tensor()) return host_int64s(v.to_tensor());
  WICK_CHECK(false, TypeError, "ctc_loss(): argument '", name, "' must be a tuple of ints or a Tensor, not ",
             v.type_name());
  return {};
}

Tensor impossible_like(T like) { return full(IntArrayRef(), Scalar(kImpossible), like.dtype(), like.device()); }

// logsumexp over the first dim of a stack of finite values.
Tensor log_sum_exp(const std::vector<Tensor>& parts) {
  const I64 first = 0;
  return logsumexp(stack(parts, 0), IntArrayRef(&first, 1));
}

// The last `count` entries of the state dim moved right by `by`, impossible in front.
Tensor shifted(T alpha, I64 by) {
  const I64 states = alpha.sizes()[1];
  if (by >= states) return full(alpha.sizes(), Scalar(kImpossible), alpha.dtype(), alpha.device());
  const I64 front[] = {alpha.sizes()[0], by};
  return cat({full(IntArrayRef(front, 2), Scalar(kImpossible), alpha.dtype(), alpha.device()),
              alpha.narrow(1, 0, states - by)},
             1);
}

Tensor ctc_loss_kernel(T log_probs, T targets, const Value& input_lengths_arg, const Value& target_lengths_arg,
                       I64 blank, std::string_view reduction, bool zero_infinity) {
  const char* op = "torch.nn.functional.ctc_loss";
  const nnf::Reduction red = nnf::resolve_reduction(op, std::nullopt, std::nullopt, reduction);
  const std::vector<I64> input_lengths = lengths_of("input_lengths", input_lengths_arg);
  const std::vector<I64> target_lengths = lengths_of("target_lengths", target_lengths_arg);
  const bool batched = log_probs.dim() == 3;
  WICK_CHECK(batched || log_probs.dim() == 2, RuntimeError, op,
             ": log_probs must be (T, N, C) or unbatched (T, C), but got ", format_shape(log_probs.sizes()));
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  const I64 frames = lp.sizes()[0];
  const I64 batch = lp.sizes()[1];
  const I64 labels = lp.sizes()[2];
  WICK_CHECK(blank >= 0 && blank < labels, RuntimeError, "blank must be in label range");
  WICK_CHECK(static_cast<I64>(input_lengths.size()) == batch, RuntimeError, "input_lengths must be of size batch_size");
  WICK_CHECK(static_cast<I64>(target_lengths.size()) == batch, RuntimeError,
             "target_lengths must be of size batch_size");
  const ScalarType t = lp.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64, RuntimeError,
             "\"ctc_loss_cpu\" not implemented for '", type_title(t), "'");
  I64 longest = 0;
  for (const I64 l : target_lengths) {
    WICK_CHECK(l >= 0, RuntimeError, op, ": target_lengths must be non-negative, but got ", l);
    longest = std::max(longest, l);
  }
  for (const I64 l : input_lengths) {
    WICK_CHECK(l <= frames, RuntimeError, "Expected input_lengths to have value at most ", frames,
               ", but got value ", l, " (while checking arguments for ctc_loss_cpu)");
    WICK_CHECK(l >= 0, RuntimeError, op, ": input_lengths must be non-negative, but got ", l);
  }
  // Each sequence's labels, from a padded (N, S) target or one concatenated 1-D target.
  const bool padded = targets.dim() == 2;
  const std::vector<I64> flat = host_int64s(targets);
  if (padded)
    WICK_CHECK(targets.sizes()[1] >= longest, RuntimeError, "Expected tensor to have size at least ", longest,
               " at dimension 1, but got size ", targets.sizes()[1],
               " for argument #2 'targets' (while checking arguments for ctc_loss_cpu)");
  // Every label the lengths ask for exists before anything is sized from them.
  I64 total = 0;
  for (const I64 l : target_lengths) total = checked_add(total, l, op);
  WICK_CHECK(padded || total <= static_cast<I64>(flat.size()), RuntimeError, op,
             ": targets hold fewer labels (", flat.size(), ") than target_lengths add up to (", total, ")");
  const I64 states = checked_add(checked_mul(longest, 2, op), 1, op);
  std::vector<I64> extended(static_cast<std::size_t>(checked_mul(batch, states, op)), blank);
  std::vector<I64> skip(extended.size(), 0);
  std::vector<I64> last;  // index of each sequence's final state 2S
  I64 offset = 0;
  for (I64 b = 0; b < batch; ++b) {
    const I64 len = target_lengths[static_cast<std::size_t>(b)];
    const I64 first = padded ? checked_mul(b, targets.sizes()[1], op) : offset;
    const I64 end = checked_add(first, len, op);
    WICK_CHECK(end <= static_cast<I64>(flat.size()), RuntimeError, op,
               ": targets hold fewer labels than target_lengths add up to");
    for (I64 q = first; q < end; ++q) {
      const I64 label = flat[static_cast<std::size_t>(q)];
      WICK_CHECK(label >= 0 && label < labels, RuntimeError, op, ": target label ", label, " is out of range [0, ",
                 labels, ")");
      const auto s = static_cast<std::size_t>(b * states + 2 * (q - first) + 1);
      extended[s] = label;
      if (q > first && label != flat[static_cast<std::size_t>(q - 1)]) skip[s] = 1;
    }
    offset = end;
    last.push_back(2 * len);
  }
  const Device device = lp.device();
  const I64 grid[] = {batch, states};
  const Tensor ext = tensor(Value(extended), ScalarType::kInt64, device).reshape(IntArrayRef(grid, 2));
  const Tensor may_skip = tensor(Value(skip), ScalarType::kInt64, device).reshape(IntArrayRef(grid, 2)).to(ScalarType::kBool);
  std::vector<I64> beyond_host;
  for (I64 b = 0; b < batch; ++b)
    for (I64 s = 0; s < states; ++s) beyond_host.push_back(s > last[static_cast<std::size_t>(b)] ? 1 : 0);
  const Tensor beyond = tensor(Value(beyond_host), ScalarType::kInt64, device).reshape(IntArrayRef(grid, 2)).to(ScalarType::kBool);
  std::vector<I64> lengths_host(input_lengths.begin(), input_lengths.end());
  const Tensor lengths = tensor(Value(lengths_host), ScalarType::kInt64, device).unsqueeze(1);
  const Tensor floor_value = impossible_like(lp);
  // lp at each state's label, never below "impossible".
  const auto emit = [&](I64 f) { return clamp_min(gather(lp.select(0, f), 1, ext), floor_value); };
  std::vector<I64> start_host;
  for (I64 b = 0; b < batch; ++b)
    for (I64 s = 0; s < states; ++s) start_host.push_back(s <= 1 && s <= last[static_cast<std::size_t>(b)] ? 1 : 0);
  const Tensor reachable = tensor(Value(start_host), ScalarType::kInt64, device).reshape(IntArrayRef(grid, 2)).to(ScalarType::kBool);
  Tensor alpha;
  if (frames > 0) alpha = where(reachable, emit(0), floor_value);
  for (I64 f = 1; f < frames; ++f) {
    const Tensor two_back = where(may_skip, shifted(alpha, 2), floor_value);
    Tensor next = add(emit(f), log_sum_exp({alpha, shifted(alpha, 1), two_back}));
    next = clamp_min(masked_fill(next, beyond, Scalar(kImpossible)), floor_value);
    alpha = where(lt(wrap_scalar(Scalar(f)), lengths), next, alpha);
  }
  Tensor loss;
  if (frames == 0) {
    loss = full(IntArrayRef(&batch, 1), Scalar(-kImpossible), t, device);
  } else {
    std::vector<I64> end_host;
    std::vector<I64> before_host;
    for (I64 b = 0; b < batch; ++b) {
      end_host.push_back(last[static_cast<std::size_t>(b)]);
      before_host.push_back(std::max<I64>(last[static_cast<std::size_t>(b)] - 1, 0));
    }
    const Tensor end = tensor(Value(end_host), ScalarType::kInt64, device).unsqueeze(1);
    Tensor before = gather(alpha, 1, tensor(Value(before_host), ScalarType::kInt64, device).unsqueeze(1));
    const Tensor empty_target = tensor(Value(target_lengths), ScalarType::kInt64, device).unsqueeze(1);
    before = where(eq(empty_target, Scalar(0)), floor_value, before);
    loss = neg(log_sum_exp({gather(alpha, 1, end), before})).squeeze(1);
    // An input of length 0 has no alignment.
    loss = where(eq(lengths.squeeze(1), Scalar(0)), full(IntArrayRef(), Scalar(-kImpossible), t, device), loss);
  }
  const Tensor infinite = gt(loss, Scalar(1e29));
  const Tensor inf_value = full(IntArrayRef(), Scalar(std::numeric_limits<double>::infinity()), t, device);
  loss = where(infinite, zero_infinity ? zeros(IntArrayRef(), t, device) : inf_value, loss);
  if (red == nnf::Reduction::kNone) return batched ? loss : loss.squeeze(0);
  if (red == nnf::Reduction::kSum) return sum(loss);
  const Tensor per_label = clamp_min(tensor(Value(target_lengths), ScalarType::kInt64, device), Scalar(1)).to(t);
  return mean(div(loss, per_label));
}

}  // namespace

void register_ctc_loss_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kCompositeImplicit);
  functional->impl("ctc_loss", &ctc_loss_kernel);
  out.push_back(std::move(functional));
}

}  // namespace wick
