// wick/structured.h - kernels derived from an operator's meta function and a backend's impl.
/// \file
/// Note [Structured kernels]
/// For an operator with a meta function (Note [Meta functions] in
/// wick/meta.h) the generator instantiates `structured_glue<...>()` in the
/// definition table. It describes three things derived from the meta
/// function alone:
///   - the operator's kernel around a backend's impl: run the meta
///     function, allocate the outputs (`empty_from`), call the impl;
///   - its out= variant's kernel: run the meta function, check `out`
///     (device, PyTorch's cast rule), resize it when its shape differs
///     (refused when it shares memory with an input), let the impl write
///     into it when its dtype and strides are the result's and it overlaps
///     no input, else through a temporary and `copy_`; bump its version.
///     A meta result with a `check_out(const Tensor&) const` member checks
///     `out` first (searchsorted takes only its own index dtype);
///   - the Meta backend's kernels: the same with an impl that computes
///     nothing, registered with the definition, so every operator with a
///     meta function runs on meta tensors.
/// An in-place operator defined as such (copy_, fill_: self is `Tensor(a!)`
/// and returned) has an impl `void(const M&, self, args...)`: the meta
/// function checks, the impl writes self, the glue bumps its version.
/// An operator with an `inplace` flag (F.leaky_relu, elu, silu) says so in
/// its meta result: when `m.write_back` is true, the kernel computes into a
/// new output as usual, copies it into the first argument (`copy_`, which
/// bumps its version) and returns that argument.
///
/// Impl signatures, for a meta function `M meta(Args...)`:
///   one output:   void impl(const M&, const Tensor& out, Args...)
///   N outputs:    void impl(const M&, const std::array<Tensor, N>& outs, Args...)
///   in-place:     void impl(const M&, Args...)
/// `Library::impl_structured` checks the impl's type against the glue's.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "wick/boxing.h"
#include "wick/dispatcher.h"
#include "wick/export.h"
#include "wick/meta.h"

namespace wick {

/// An operator's tie to its meta function (made by `structured_glue`,
/// stored with its definition; see Note [Structured kernels]).
struct StructuredGlue {
  /// The impl's function type: `void(const M&, const Tensor&, Args...)`.
  const std::type_info* impl_type;
  /// The operator's kernel around an impl.
  KernelFunction (*kernel)(void* impl);
  /// Its out= variant's kernel around the same impl (null: no out variant).
  KernelFunction (*out_kernel)(void* impl);
  /// The Meta backend's impl: computes nothing.
  void* meta_impl;
  /// "torch.add": the operator's name in out= errors.
  const char* op;
  /// "torch.add.out", or null.
  const char* out_name;
};

namespace detail {

/// Checks `out` against a result of geometry `m` for an out= kernel of `op`:
/// its device, PyTorch's cast rule ("result type Float can't be cast to the
/// desired output type Long"), and its shape, resizing it when it differs
/// (RuntimeError when it shares memory with one of `inputs`). Returns
/// whether the impl may write into `out` directly (same dtype and strides
/// as `m`, no input overlapping it other than element for element).
[[nodiscard]] WICK_API bool prepare_out(const Tensor& out, const TensorMeta& m, const char* op,
                                        ArrayRef<const Tensor*> inputs);

/// Hands each tensor among an argument to `push` (prepare_out's inputs).
template <typename F>
void collect_tensors(F&& push, const Tensor& t) {
  push(&t);
}
template <typename F>
void collect_tensors(F&& push, const std::optional<Tensor>& t) {
  if (t) push(&*t);
}
template <typename F>
void collect_tensors(F&& push, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) push(&t);
}
template <typename F, typename T>
void collect_tensors(F&&, const T&) {}

/// How many tensors the arguments `Args` can hold at most, or none when one
/// is a tensor list (any number).
template <typename... Args>
constexpr std::optional<std::size_t> max_tensor_args() {
  if constexpr ((std::is_same_v<std::remove_cvref_t<Args>, std::vector<Tensor>> || ...)) {
    return std::nullopt;
  } else {
    return (std::size_t{0} + ... +
            static_cast<std::size_t>(std::is_same_v<std::remove_cvref_t<Args>, Tensor> ||
                                     std::is_same_v<std::remove_cvref_t<Args>, std::optional<Tensor>>));
  }
}

/// The number of outputs of a meta result type.
template <typename M>
constexpr std::size_t meta_outputs() {
  if constexpr (requires(const M& m) { m.outs; }) {
    return std::tuple_size_v<std::remove_cvref_t<decltype(std::declval<const M&>().outs)>>;
  } else {
    return 1;
  }
}

/// A KernelFunction whose unboxed entry is `kFn(functor, ks, args...)`.
template <auto kFn, typename Ret, typename... Args>
struct GlueKernel {
  template <std::size_t... I>
  static void call_boxed(const KernelFunction& self, DispatchKeySet ks, Stack& stack, std::index_sequence<I...>) {
    const std::size_t base = stack.size() - sizeof...(Args);
    Ret r = kFn(self.functor, ks, Unbox<Args>::get(stack[base + I])...);
    stack.resize(base);
    push_results(stack, std::move(r));
  }
  static void boxed(const KernelFunction& self, const OperatorHandle&, DispatchKeySet ks, Stack& stack) {
    WICK_INTERNAL_ASSERT(stack.size() >= sizeof...(Args), "boxed call with too few arguments");
    call_boxed(self, ks, stack, std::index_sequence_for<Args...>{});
  }
  static KernelFunction make(void* functor) {
    KernelFunction k;
    k.functor = functor;
    k.unboxed = reinterpret_cast<void*>(kFn);
    k.boxed = &boxed;
    k.signature = &typeid(Ret(Args...));
    return k;
  }
};

template <auto kMetaFn, const char* kOp, typename Sig>
struct Structured;

/// An operator that makes new outputs (and its out= variant).
template <auto kMetaFn, const char* kOp, typename Ret, typename... Args>
struct Structured<kMetaFn, kOp, Ret(Args...)> {
  using M = std::remove_cvref_t<decltype(kMetaFn(std::declval<Args>()...))>;
  static constexpr std::size_t kN = meta_outputs<M>();
  using Outs = std::conditional_t<kN == 1, const Tensor&, const std::array<Tensor, kN>&>;
  using Impl = void(const M&, Outs, Args...);

  static void noop(const M&, Outs, Args...) {}

  static Ret functional(void* impl, DispatchKeySet, Args... args) {
    const M m = kMetaFn(args...);
    if constexpr (kN == 1) {
      Tensor out = empty_from(m.out);
      reinterpret_cast<Impl*>(impl)(m, out, args...);
      if constexpr (requires { m.write_back; }) {
        if (m.write_back) {
          Tensor self = std::get<0>(std::forward_as_tuple(args...));
          self.copy_(out);
          return self;
        }
      }
      return out;
    } else {
      std::array<Tensor, kN> outs;
      for (std::size_t i = 0; i < kN; ++i) outs[i] = empty_from(m.outs[i]);
      reinterpret_cast<Impl*>(impl)(m, outs, args...);
      return std::apply([](auto&... t) { return Ret(t...); }, outs);
    }
  }

  static Tensor with_out(void* impl, DispatchKeySet, Args... args, const Tensor& out) {
    static_assert(kN == 1, "out= variants have one output");
    const M m = kMetaFn(args...);
    if constexpr (requires(const M& r, const Tensor& o) { r.check_out(o); }) m.check_out(out);
    // The inputs, on the stack unless a tensor list is among them.
    bool in_place = false;
    if constexpr (constexpr auto kMax = max_tensor_args<Args...>(); kMax.has_value()) {
      std::array<const Tensor*, *kMax + 1> inputs{};
      std::size_t n = 0;
      (collect_tensors([&](const Tensor* t) { inputs[n++] = t; }, args), ...);
      in_place = prepare_out(out, m.out, kOp, ArrayRef<const Tensor*>(inputs.data(), n));
    } else {
      std::vector<const Tensor*> inputs;
      (collect_tensors([&](const Tensor* t) { inputs.push_back(t); }, args), ...);
      in_place = prepare_out(out, m.out, kOp, inputs);
    }
    if (in_place) {
      reinterpret_cast<Impl*>(impl)(m, out, args...);
    } else {
      const Tensor result = empty_from(m.out);
      reinterpret_cast<Impl*>(impl)(m, result, args...);
      Tensor target = out;
      target.copy_(result);
    }
    out.bump_version();
    return out;
  }

  static KernelFunction kernel(void* impl) { return GlueKernel<&functional, Ret, Args...>::make(impl); }
  static KernelFunction out_kernel(void* impl) {
    if constexpr (kN == 1) {
      return GlueKernel<&with_out, Tensor, Args..., const Tensor&>::make(impl);
    } else {
      (void)impl;
      return KernelFunction{};
    }
  }
};

/// An in-place operator: the first argument is written and returned.
template <auto kMetaFn, const char* kOp, typename Sig>
struct StructuredInplace;
template <auto kMetaFn, const char* kOp, typename... Args>
struct StructuredInplace<kMetaFn, kOp, Tensor(Args...)> {
  using M = std::remove_cvref_t<decltype(kMetaFn(std::declval<Args>()...))>;
  using Impl = void(const M&, Args...);

  static void noop(const M&, Args...) {}

  static Tensor run(void* impl, DispatchKeySet, Args... args) {
    const M m = kMetaFn(args...);
    reinterpret_cast<Impl*>(impl)(m, args...);
    const Tensor& self = std::get<0>(std::forward_as_tuple(args...));
    self.bump_version();
    return self;
  }
  static KernelFunction kernel(void* impl) { return GlueKernel<&run, Tensor, Args...>::make(impl); }
};

}  // namespace detail

/// The glue of an operator whose kernels have C++ signature `Sig` and whose
/// meta function is `kMetaFn` (named `kOp` in errors); `kOut` is its out=
/// variant's full name, or null. Written by the generator.
template <auto kMetaFn, const char* kOp, typename Sig, const char* kOut = nullptr>
const StructuredGlue* structured_glue() {
  using S = detail::Structured<kMetaFn, kOp, Sig>;
  static const StructuredGlue glue{
      &typeid(typename S::Impl),         &S::kernel, kOut != nullptr ? &S::out_kernel : nullptr,
      reinterpret_cast<void*>(&S::noop), kOp,        kOut};
  return &glue;
}
/// The same for an in-place operator (copy_, fill_).
template <auto kMetaFn, const char* kOp, typename Sig>
const StructuredGlue* structured_inplace_glue() {
  using S = detail::StructuredInplace<kMetaFn, kOp, Sig>;
  static const StructuredGlue glue{&typeid(typename S::Impl),         &S::kernel, nullptr,
                                   reinterpret_cast<void*>(&S::noop), kOp,        nullptr};
  return &glue;
}

}  // namespace wick
