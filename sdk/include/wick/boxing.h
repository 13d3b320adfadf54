// wick/boxing.h - conversions between Values and typed kernel arguments.
/// \file
/// Included by wick/dispatcher.h. Turns a typed kernel into a boxed one
/// (`make_kernel`) and lets a typed call reach a boxed-only kernel. The C++
/// types an operator signature may use, and the schema types they carry:
///
///   const Tensor&            Tensor            const std::optional<Tensor>&  Tensor?
///   const std::vector<Tensor>& Tensor[]        std::int64_t / std::optional<std::int64_t>  int / int?
///   IntArrayRef / std::optional<IntArrayRef>   int[] / int[]?
///   double / std::optional<double>             float / float?
///   bool                     bool              const Scalar& / const std::optional<Scalar>&  Scalar
///   ScalarType / std::optional<ScalarType>     ScalarType      Device / std::optional<Device>  Device / Device?
///   std::string_view / std::optional<std::string_view>  str / str?
///   const Value&             Any
///
/// Returns: Tensor, void, std::tuple<Tensor, ...>, std::vector<Tensor>,
/// double, std::int64_t, bool, Scalar.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "wick/dispatcher.h"

namespace wick::detail {

template <typename T> struct Unbox;  // Value -> argument
template <> struct Unbox<const Tensor&> { static const Tensor& get(const Value& v) { return v.to_tensor(); } };
template <> struct Unbox<Tensor> { static Tensor get(const Value& v) { return v.to_tensor(); } };
template <> struct Unbox<const std::optional<Tensor>&> {
  static std::optional<Tensor> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_tensor();
  }
};
template <> struct Unbox<const std::vector<Tensor>&> {
  static const std::vector<Tensor>& get(const Value& v) { return v.to_tensor_list(); }
};
/// `Tensor?[]` (index's indices): a list whose items are tensors or None
/// (a boxed call's generic list), or a tensor list.
template <> struct Unbox<const std::vector<std::optional<Tensor>>&> {
  static std::vector<std::optional<Tensor>> get(const Value& v) {
    std::vector<std::optional<Tensor>> out;
    if (v.is_tensor_list()) {
      for (const Tensor& t : v.to_tensor_list()) out.emplace_back(t);
      return out;
    }
    for (const Value& item : v.items()) {
      if (item.is_none()) {
        out.emplace_back(std::nullopt);
      } else {
        out.emplace_back(item.to_tensor());
      }
    }
    return out;
  }
};
template <> struct Unbox<std::int64_t> { static std::int64_t get(const Value& v) { return v.to_int(); } };
template <> struct Unbox<std::optional<std::int64_t>> {
  static std::optional<std::int64_t> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_int();
  }
};
template <> struct Unbox<IntArrayRef> { static IntArrayRef get(const Value& v) { return v.to_int_list(); } };
template <> struct Unbox<std::optional<IntArrayRef>> {
  static std::optional<IntArrayRef> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return IntArrayRef(v.to_int_list());
  }
};
template <> struct Unbox<double> { static double get(const Value& v) { return v.to_double(); } };
template <> struct Unbox<std::optional<double>> {
  static std::optional<double> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_double();
  }
};
template <> struct Unbox<bool> { static bool get(const Value& v) { return v.to_bool(); } };
template <> struct Unbox<std::optional<bool>> {
  static std::optional<bool> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_bool();
  }
};
template <> struct Unbox<const Scalar&> { static Scalar get(const Value& v) { return v.to_scalar(); } };
template <> struct Unbox<const std::optional<Scalar>&> {
  static std::optional<Scalar> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_scalar();
  }
};
template <> struct Unbox<ScalarType> { static ScalarType get(const Value& v) { return v.to_dtype(); } };
template <> struct Unbox<std::optional<ScalarType>> {
  static std::optional<ScalarType> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_dtype();
  }
};
template <> struct Unbox<Device> { static Device get(const Value& v) { return v.to_device(); } };
template <> struct Unbox<std::optional<Device>> {
  static std::optional<Device> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return v.to_device();
  }
};
template <> struct Unbox<std::string_view> {
  static std::string_view get(const Value& v) { return v.to_string(); }
};
template <> struct Unbox<std::optional<std::string_view>> {
  static std::optional<std::string_view> get(const Value& v) {
    if (v.is_none()) return std::nullopt;
    return std::string_view(v.to_string());
  }
};
template <> struct Unbox<const Value&> { static const Value& get(const Value& v) { return v; } };
template <> struct Unbox<Value> { static Value get(const Value& v) { return v; } };  // an `Any` result

// Argument -> Value.
template <typename T>
Value box(const T& a) { return Value(a); }
inline Value box(std::string_view s) { return Value(std::string(s)); }
inline Value box(const std::optional<std::string_view>& s) {
  return s ? Value(std::string(*s)) : Value();
}
inline Value box(const std::optional<IntArrayRef>& r) { return r ? Value(r->vec()) : Value(); }
inline Value box(const std::vector<std::optional<Tensor>>& ts) {
  std::vector<Value> items;
  items.reserve(ts.size());
  for (const std::optional<Tensor>& t : ts) items.push_back(t ? Value(*t) : Value());
  return Value::list(std::move(items));
}

// Results <-> stack.
inline void push_results(Stack& s, Tensor t) { s.emplace_back(std::move(t)); }
inline void push_results(Stack& s, std::vector<Tensor> t) { s.emplace_back(std::move(t)); }
inline void push_results(Stack& s, double v) { s.emplace_back(v); }
inline void push_results(Stack& s, std::int64_t v) { s.emplace_back(v); }
inline void push_results(Stack& s, bool v) { s.emplace_back(v); }
inline void push_results(Stack& s, const Scalar& v) { s.emplace_back(v); }
inline void push_results(Stack& s, ScalarType v) { s.emplace_back(v); }
inline void push_results(Stack& s, Value v) { s.emplace_back(std::move(v)); }  // an `Any` result
template <typename... Ts>
void push_results(Stack& s, std::tuple<Ts...> t) {
  std::apply([&](auto&&... x) { (push_results(s, std::move(x)), ...); }, std::move(t));
}

template <typename Ret> struct PopResult {
  static Ret get(Stack& s) {
    WICK_INTERNAL_ASSERT(s.size() == 1, "a boxed kernel returned ", s.size(), " values; expected 1");
    return Unbox<Ret>::get(s[0]);
  }
};
template <> struct PopResult<void> { static void get(Stack&) {} };
template <> struct PopResult<Tensor> {
  static Tensor get(Stack& s) {
    WICK_INTERNAL_ASSERT(s.size() == 1, "a boxed kernel returned ", s.size(), " values; expected 1");
    return s[0].to_tensor();
  }
};
template <> struct PopResult<std::vector<Tensor>> {
  static std::vector<Tensor> get(Stack& s) { return s.at(0).to_tensor_list(); }
};
template <typename... Ts> struct PopResult<std::tuple<Ts...>> {
  static std::tuple<Ts...> get(Stack& s) {
    WICK_INTERNAL_ASSERT(s.size() == sizeof...(Ts), "a boxed kernel returned ", s.size(), " values");
    return get_impl(s, std::index_sequence_for<Ts...>{});
  }
  template <std::size_t... I>
  static std::tuple<Ts...> get_impl(Stack& s, std::index_sequence<I...>) {
    return std::tuple<Ts...>(Unbox<Ts>::get(s[I])...);
  }
};
template <typename Ret, typename... Args>
Ret call_boxed_kernel(const KernelFunction& k, const OperatorHandle& op, DispatchKeySet ks, Args... args) {
  Stack stack;
  stack.reserve(sizeof...(Args));
  (stack.push_back(box(args)), ...);
  k.boxed(k, op, ks, stack);
  return PopResult<Ret>::get(stack);
}

// --- typed function -> KernelFunction -------------------------------------

template <typename F> struct FnTraits;
template <typename R, typename... A> struct FnTraits<R (*)(A...)> {
  static constexpr bool kWithKeys = false;
  using Sig = R(A...);
  using Ret = R;
  using Args = std::tuple<A...>;
};
template <typename R, typename... A> struct FnTraits<R (*)(DispatchKeySet, A...)> {
  static constexpr bool kWithKeys = true;
  using Sig = R(A...);
  using Ret = R;
  using Args = std::tuple<A...>;
};

template <bool kWithKeys, typename R, typename... A>
R unboxed_caller(void* functor, DispatchKeySet ks, A... args) {
  if constexpr (kWithKeys) {
    return reinterpret_cast<R (*)(DispatchKeySet, A...)>(functor)(ks, std::forward<A>(args)...);
  } else {
    (void)ks;
    return reinterpret_cast<R (*)(A...)>(functor)(std::forward<A>(args)...);
  }
}

template <bool kWithKeys, typename R, typename... A, std::size_t... I>
void boxed_caller_impl(const KernelFunction& self, DispatchKeySet ks, Stack& stack,
                       std::index_sequence<I...>) {
  const std::size_t base = stack.size() - sizeof...(A);
  if constexpr (std::is_void_v<R>) {
    unboxed_caller<kWithKeys, R, A...>(self.functor, ks, Unbox<A>::get(stack[base + I])...);
    stack.resize(base);
  } else {
    R r = unboxed_caller<kWithKeys, R, A...>(self.functor, ks, Unbox<A>::get(stack[base + I])...);
    stack.resize(base);
    push_results(stack, std::move(r));
  }
}

template <bool kWithKeys, typename R, typename... A>
void boxed_caller(const KernelFunction& self, const OperatorHandle&, DispatchKeySet ks, Stack& stack) {
  WICK_INTERNAL_ASSERT(stack.size() >= sizeof...(A), "boxed call with too few arguments");
  boxed_caller_impl<kWithKeys, R, A...>(self, ks, stack, std::index_sequence_for<A...>{});
}

template <bool kWithKeys, typename R, typename Tuple> struct KernelMaker;
template <bool kWithKeys, typename R, typename... A>
struct KernelMaker<kWithKeys, R, std::tuple<A...>> {
  static KernelFunction make(void* fn) {
    KernelFunction k;
    k.functor = fn;
    k.unboxed = reinterpret_cast<void*>(&unboxed_caller<kWithKeys, R, A...>);
    k.boxed = &boxed_caller<kWithKeys, R, A...>;
    k.signature = &typeid(R(A...));
    return k;
  }
};

}  // namespace wick::detail

namespace wick {

/// Makes a kernel from a plain function (or captureless lambda with `+`).
/// The function may take `DispatchKeySet` first, to redispatch.
template <typename F>
KernelFunction make_kernel(F* fn) {
  using Traits = detail::FnTraits<F*>;
  return detail::KernelMaker<Traits::kWithKeys, typename Traits::Ret, typename Traits::Args>::make(
      reinterpret_cast<void*>(fn));
}

/// A kernel that calls a BoxedFunctor (the caller keeps the functor alive).
WICK_API KernelFunction make_boxed_kernel(BoxedFunctor* functor);
/// A kernel that passes through to the next key.
WICK_API KernelFunction make_fallthrough_kernel();

}  // namespace wick
