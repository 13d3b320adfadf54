// wick/nn.h - nn::Module (parameters, buffers, submodules, hooks, state_dict), nn::Parameter and nn::init.
/// \file
/// A model is a tree of `Module`s. A module registers its tensors and
/// children by name in its constructor; everything else (listing, moving,
/// saving, printing, hooks) works on that registry, as in PyTorch:
///
///   struct Net : wick::nn::Callable<Net> {
///     Net() {
///       weight = register_parameter("weight", wick::randn({3, 4}));
///       bias = register_parameter("bias", wick::zeros({3}));
///     }
///     wick::Tensor forward(const wick::Tensor& x) { return x.matmul(weight.t()) + bias; }
///     wick::Tensor weight, bias;
///   };
///
///   auto net = std::make_shared<Net>();
///   wick::Tensor y = (*net)(x);                 // runs hooks, then forward
///   for (auto& [name, p] : net->named_parameters()) ...   // "weight", "bias"
///   net->to(wick::ScalarType::kFloat64);        // weight and bias keep their identity
///   auto sd = net->state_dict();                // {"weight": ..., "bias": ...}
///   std::cout << *net;                          // Net()
///
/// Note [Module calls and hooks]
/// `Callable<Derived>::operator()` calls `Derived::forward` directly when the
/// module has no forward hooks: no boxing, no allocation. With hooks it boxes
/// the arguments into `std::vector<Value>`, runs the forward pre-hooks (a
/// returned vector replaces the inputs), unboxes them into forward's parameter
/// types, calls forward, boxes the result, runs the forward hooks (a returned
/// Value replaces the output) and unboxes it back into forward's return type.
/// Arguments and results may be Tensor, std::optional<Tensor>,
/// std::vector<Tensor>, numbers, bool, Scalar, ScalarType, strings, int and
/// float lists, Value, or std::tuple of these. When `forward` is overloaded or
/// a template, the call site's argument types are used instead of its
/// parameter types. A hook that returns values of the wrong kind or count
/// gives a TypeError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "wick/autograd.h"
#include "wick/boxing.h"
#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick::nn {

class Module;
/// The holder of a built-in module (Note [Module holders]); defined below.
template <class Impl>
class ModuleHolder;

/// Runs before forward; a returned vector replaces the inputs.
using ForwardPreHook = std::function<std::optional<std::vector<Value>>(Module&, const std::vector<Value>& inputs)>;
/// Runs after forward; a returned Value replaces the output.
using ForwardHook =
    std::function<std::optional<Value>(Module&, const std::vector<Value>& inputs, const Value& output)>;

namespace detail {
/// A module's forward hooks. Shared so that a RemovableHandle can outlive the module.
struct ForwardHookLists {
  std::vector<std::pair<std::uint64_t, ForwardPreHook>> pre;
  std::vector<std::pair<std::uint64_t, ForwardHook>> post;
  std::uint64_t next_id = 1;
};
}  // namespace detail

/// What `load_state_dict` did not match: model keys absent from the input,
/// and input keys the model has no place for.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;  ///< model keys that `state` did not contain
  std::vector<std::string> unexpected_keys;  ///< keys of `state` that match no parameter or buffer of the model
};

/// A detached alias of `data` that requires grad when its dtype is floating
/// point (integer data is kept without gradients). `Tensor` is final, so a
/// Parameter is a thin wrapper that converts to `const Tensor&`:
///
///   Tensor w = nn::Parameter(wick::randn({3}));   // leaf, requires_grad
class WICK_API Parameter final {
 public:
  /// RuntimeError when `data` is undefined.
  explicit Parameter(Tensor data, bool requires_grad = true);
  /// The wrapped tensor: a leaf that requires grad for floating-point data.
  [[nodiscard]] const Tensor& tensor() const noexcept { return tensor_; }
  /// Converts to the wrapped tensor, so a Parameter passes wherever a Tensor does.
  operator const Tensor&() const noexcept { return tensor_; }  // NOLINT(implicit)

 private:
  Tensor tensor_;
};

/// Base of every module. Hold modules in `std::shared_ptr`; derive from
/// `Callable<Derived>` to make a module callable with hooks. Modules are not
/// copyable. Name errors are ValueErrors naming the name; see each member.
class WICK_API Module : public std::enable_shared_from_this<Module> {
 public:
  Module() = default;
  virtual ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // --- registration ---------------------------------------------------------
  /// Registers `tensor` as parameter `name` and returns the stored handle. A
  /// leaf is stored as-is (same TensorImpl); a tensor with history is stored
  /// detached. requires_grad is set to `requires_grad` for floating-point
  /// tensors. An undefined tensor registers an absent optional parameter:
  /// not listed, not saved, but `parameter(name)` returns it undefined.
  /// ValueError: `parameter name can't be empty string ""`, `parameter name
  /// can't contain ".", got: a.b`, `attribute 'weight' already exists` (the
  /// name is taken by a parameter, buffer or submodule); nothing is
  /// registered then.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  /// Registers a buffer (state that is not a parameter: running statistics,
  /// masks). Non-persistent buffers are left out of state_dict. Undefined
  /// registers an absent buffer. Same name errors as register_parameter,
  /// with "buffer name".
  Tensor& register_buffer(std::string name, Tensor tensor, bool persistent = true);
  /// Registers a submodule (null registers an absent one, printed as None) and
  /// returns it. Same name errors, with "module name".
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    static_assert(std::is_base_of_v<Module, M>, "register_module: M must derive from wick::nn::Module");
    register_module_impl(std::move(name), module);
    return module;
  }
  /// Registers the module a holder (`nn::Linear`, a WICK_MODULE) points to
  /// and returns the holder: `fc1 = register_module("fc1", nn::Linear(4, 3));`.
  template <class H>
    requires requires { typename std::remove_cvref_t<H>::ContainedType; }
  std::remove_cvref_t<H> register_module(std::string name, H&& holder) {
    register_module_impl(std::move(name), holder.ptr());
    return std::forward<H>(holder);
  }

  // --- listing (registration order; shared tensors and modules once) --------
  /// Every parameter, of this module and (with `recurse`, the default) of its
  /// descendants; absent ones skipped, a tensor shared by modules listed once.
  [[nodiscard]] std::vector<Tensor> parameters(bool recurse = true) const;
  /// ("weight", w), ("fc1.weight", ...): names dotted with submodule paths.
  [[nodiscard]] std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  /// Every buffer (persistent or not), as parameters() lists parameters.
  [[nodiscard]] std::vector<Tensor> buffers(bool recurse = true) const;
  /// (name, buffer) pairs with dotted names ("bn.running_mean"), as named_parameters().
  [[nodiscard]] std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  /// Direct submodules (absent ones skipped).
  [[nodiscard]] std::vector<std::shared_ptr<Module>> children() const;
  /// (name, module) pairs of the direct submodules; absent ones skipped, a shared one listed once.
  [[nodiscard]] std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  /// This module first (named ""), then every descendant in pre-order. The
  /// pointer to this module does not own it when it is not held by a shared_ptr.
  [[nodiscard]] std::vector<std::shared_ptr<Module>> modules();
  /// (dotted path, module) pairs: this module as "", then its descendants in
  /// pre-order ("fc1", "block.conv"); a module reached twice is listed once.
  [[nodiscard]] std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules();
  /// Parameter `name` ("weight" or a dotted path "fc1.weight"); undefined
  /// when registered absent. ValueError "'Net' object has no parameter 'x'"
  /// (or "no submodule 'fc3'" for a bad path).
  [[nodiscard]] Tensor parameter(std::string_view name) const;
  /// Buffer `name`, as parameter().
  [[nodiscard]] Tensor buffer(std::string_view name) const;
  /// Calls `fn` on every submodule (children first) and then on this module.
  Module& apply(const std::function<void(Module&)>& fn);

  // --- mode, conversion, gradients ------------------------------------------
  /// Sets training mode here and in every descendant.
  Module& train(bool on = true);
  /// Sets evaluation mode here and in every descendant: train(false).
  Module& eval() { return train(false); }
  /// True in training mode (the default for a new module), false after eval().
  [[nodiscard]] bool is_training() const noexcept { return training_; }
  /// Converts every floating-point parameter, buffer and parameter gradient
  /// to `dtype` in place (identity kept; integer tensors are left alone, as
  /// in PyTorch). TypeError for a non-floating `dtype`. Conversions are all
  /// computed before any tensor is changed.
  Module& to(ScalarType dtype);
  /// Moves every parameter, buffer and gradient to `device` in place; a
  /// tensor already on a device of that type is left alone when either index
  /// is -1 ("the current one"). Errors are those of the copy; nothing is
  /// changed when one fails.
  Module& to(Device device);
  /// Zeroes every parameter's gradient in place (detached from any graph),
  /// or with `set_to_none` resets it to undefined.
  void zero_grad(bool set_to_none = false);

  // --- saving and loading --------------------------------------------------
  /// Parameters then persistent buffers of each module, recursively, under
  /// dotted names; absent entries are skipped; tensors are detached aliases.
  [[nodiscard]] std::vector<std::pair<std::string, Tensor>> state_dict() const;
  /// Copies `state` into the parameters and buffers in place (converting
  /// dtype). RuntimeError "Error(s) in loading state_dict for Net:" followed
  /// by one tab-indented line per problem, as PyTorch prints them: missing and
  /// unexpected keys (only when `strict`) and size mismatches (always).
  /// Nothing is modified when it throws. Returns the missing and unexpected
  /// keys (also when not strict).
  IncompatibleKeys load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state, bool strict = true);

  // --- printing ----------------------------------------------------------------
  /// The class name without namespaces (demangled dynamic type), e.g.
  /// "Linear"; a trailing "Impl" (LinearImpl, a WICK_MODULE's class) is dropped.
  [[nodiscard]] virtual std::string name() const;
  /// Extra text printed inside the parentheses: "in_features=4, ...".
  [[nodiscard]] virtual std::string extra_repr() const { return ""; }
  /// PyTorch's module tree: "Net(\n  (fc1): Linear(...)\n)".
  [[nodiscard]] std::string repr() const;

  // --- hooks (Note [Module calls and hooks]) ----------------------------------------
  /// Runs `hook` before every call through Callable::operator().
  autograd::RemovableHandle register_forward_pre_hook(ForwardPreHook hook);
  /// Runs `hook` after every call through Callable::operator().
  autograd::RemovableHandle register_forward_hook(ForwardHook hook);
  /// True when a forward pre-hook or forward hook is registered: operator()
  /// then takes the boxed path of Note [Module calls and hooks].
  [[nodiscard]] bool has_forward_hooks() const noexcept {
    return hooks_ != nullptr && (!hooks_->pre.empty() || !hooks_->post.empty());
  }
  /// Runs the pre-hooks in registration order; each sees the previous result.
  [[nodiscard]] std::vector<Value> run_forward_pre_hooks(std::vector<Value> inputs);
  /// Runs the forward hooks in registration order over `output`.
  [[nodiscard]] Value run_forward_hooks(const std::vector<Value>& inputs, Value output);

 private:
  struct NamedTensor {
    std::string name;
    Tensor tensor;
    bool persistent = true;
  };
  void register_module_impl(std::string name, std::shared_ptr<Module> module);
  void check_new_name(const std::string& name, const char* kind) const;
  const NamedTensor* find_tensor(std::string_view path, bool buffer) const;
  void collect_modules(const std::string& prefix, std::vector<std::pair<std::string, std::shared_ptr<Module>>>& out,
                       std::unordered_set<const Module*>& seen);
  void collect_state(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const;
  struct LoadPlan;
  void plan_load(const std::string& prefix, const std::vector<std::pair<std::string, Tensor>>& state,
                 LoadPlan& plan) const;
  void convert(const std::function<std::optional<Tensor>(const Tensor&)>& fn);
  void repr_into(std::string& out) const;

  std::deque<NamedTensor> parameters_;  // deque: register_* returns stable references
  std::deque<NamedTensor> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::shared_ptr<detail::ForwardHookLists> hooks_;
  bool training_ = true;
};

/// Prints `module.repr()`.
WICK_API std::ostream& operator<<(std::ostream& os, const Module& module);

/// Zeroes the gradients of `params` in place (detached from any graph), or
/// with `set_to_none` resets them to undefined: what Module::zero_grad and
/// the optimizers' zero_grad do.
WICK_API void zero_grad(const std::vector<Tensor>& params, bool set_to_none = false);

namespace detail {

/// TypeError: the forward pre-hooks of `m` returned `got` inputs where forward takes `expected`.
[[noreturn]] WICK_API void hook_arity_error(const Module& m, std::size_t expected, std::size_t got);

template <class T>
struct IsTuple : std::false_type {};
template <class... Ts>
struct IsTuple<std::tuple<Ts...>> : std::true_type {};

/// Boxes one argument or result into a Value.
template <class T>
Value to_value(const T& v) {
  if constexpr (IsTuple<T>::value) {
    std::vector<Value> items;
    std::apply([&](const auto&... e) { (items.push_back(to_value(e)), ...); }, v);
    return Value::list(std::move(items), /*tuple=*/true);
  } else if constexpr (std::is_same_v<T, Value>) {
    return v;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Value(v);
  } else {
    return wick::detail::box(v);
  }
}

template <class Tuple, std::size_t... I>
Tuple tuple_from_value(const Value& v, std::index_sequence<I...>);

/// Unboxes a Value into `T` (a declared parameter type or a decayed type).
/// TypeError ("expected Tensor but got int") on a mismatch.
template <class T>
std::remove_cvref_t<T> from_value(const Value& v) {
  using D = std::remove_cvref_t<T>;
  if constexpr (requires { wick::detail::Unbox<T>::get(v); }) {
    return wick::detail::Unbox<T>::get(v);
  } else if constexpr (requires { wick::detail::Unbox<D>::get(v); }) {
    return wick::detail::Unbox<D>::get(v);
  } else if constexpr (std::is_same_v<D, Value>) {
    return v;
  } else if constexpr (std::is_same_v<D, std::optional<Tensor>>) {
    return v.is_none() ? std::optional<Tensor>() : std::optional<Tensor>(v.to_tensor());
  } else if constexpr (std::is_same_v<D, std::vector<Tensor>>) {
    return v.to_tensor_list();
  } else if constexpr (std::is_same_v<D, Scalar>) {
    return v.to_scalar();
  } else if constexpr (std::is_same_v<D, std::string>) {
    return v.to_string();
  } else if constexpr (std::is_same_v<D, std::vector<std::int64_t>>) {
    return v.to_int_list();
  } else if constexpr (std::is_same_v<D, std::vector<double>>) {
    return v.to_double_list();
  } else if constexpr (std::is_same_v<D, Device>) {
    return v.to_device();
  } else if constexpr (std::is_integral_v<D>) {
    return static_cast<D>(v.to_int());
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(v.to_double());
  } else if constexpr (IsTuple<D>::value) {
    return tuple_from_value<D>(v, std::make_index_sequence<std::tuple_size_v<D>>{});
  } else {
    static_assert(sizeof(D) == 0, "nn::Callable: this forward() argument or result type cannot be boxed");
  }
}

template <class Tuple, std::size_t... I>
Tuple tuple_from_value(const Value& v, std::index_sequence<I...>) {
  const std::vector<Value>& items = v.items();
  WICK_CHECK(items.size() == sizeof...(I), TypeError, "expected a tuple of ", sizeof...(I),
             " values but got ", items.size());
  return Tuple(from_value<std::tuple_element_t<I, Tuple>>(items[I])...);
}

/// The parameter types of a non-overloaded, non-template `forward`.
template <class F>
struct ForwardSignature;
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...)> { using Params = std::tuple<A...>; };
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...) const> { using Params = std::tuple<A...>; };
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...) noexcept> { using Params = std::tuple<A...>; };
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...) const noexcept> { using Params = std::tuple<A...>; };

/// The first N types of a tuple.
template <std::size_t N, class Tuple, class Seq = std::make_index_sequence<N>>
struct TakeFirst;
template <std::size_t N, class Tuple, std::size_t... I>
struct TakeFirst<N, Tuple, std::index_sequence<I...>> {
  using Type = std::tuple<std::tuple_element_t<I, Tuple>...>;
};

/// What `forward` is called with on the hooked path: forward's own first N
/// parameter types when it can be named, else the call site's decayed types.
template <class Derived, class... Args>
struct HookedParams {
  using Type = std::tuple<std::remove_cvref_t<Args>...>;
};
template <class Derived, class... Args>
  requires requires { typename ForwardSignature<decltype(&Derived::forward)>::Params; }
struct HookedParams<Derived, Args...> {
  using Type = typename TakeFirst<sizeof...(Args), typename ForwardSignature<decltype(&Derived::forward)>::Params>::Type;
};

}  // namespace detail

/// Makes `Derived` callable: `(*module)(args...)` runs the forward hooks
/// around `Derived::forward(args...)`; see Note [Module calls and hooks].
template <class Derived>
class Callable : public Module {
 public:
  // The return type is deduced (forward's, without reference): Derived is
  // still incomplete when this class is instantiated.
  /// Calls `Derived::forward(args...)` and returns its result (without
  /// reference); with hooks registered, runs them around it. TypeError when a
  /// hook returns inputs or an output of the wrong kind or count.
  template <class... Args>
  auto operator()(Args&&... args) {
    if (!has_forward_hooks()) [[likely]] {
      return static_cast<Derived&>(*this).forward(std::forward<Args>(args)...);
    }
    return call_hooked<typename detail::HookedParams<Derived, Args...>::Type>(
        std::make_index_sequence<sizeof...(Args)>{}, std::forward<Args>(args)...);
  }

 private:
  template <class Params, std::size_t... I, class... Args>
  auto call_hooked(std::index_sequence<I...>, Args&&... args) {
    using R = std::remove_cvref_t<decltype(std::declval<Derived&>().forward(std::forward<Args>(args)...))>;
    std::vector<Value> inputs;
    inputs.reserve(sizeof...(Args));
    (inputs.push_back(detail::to_value(args)), ...);
    inputs = run_forward_pre_hooks(std::move(inputs));
    if (inputs.size() != sizeof...(Args)) detail::hook_arity_error(*this, sizeof...(Args), inputs.size());
    std::tuple<std::remove_cvref_t<std::tuple_element_t<I, Params>>...> unboxed(
        detail::from_value<std::tuple_element_t<I, Params>>(inputs[I])...);
    Derived& self = static_cast<Derived&>(*this);
    if constexpr (std::is_void_v<R>) {
      self.forward(static_cast<std::tuple_element_t<I, Params>&&>(std::get<I>(unboxed))...);
      (void)run_forward_hooks(inputs, Value());
    } else {
      Value out = detail::to_value(
          R(self.forward(static_cast<std::tuple_element_t<I, Params>&&>(std::get<I>(unboxed))...)));
      out = run_forward_hooks(inputs, std::move(out));
      return detail::from_value<R>(out);
    }
  }
};

/// Note [Module holders]
/// As in libtorch, a built-in module is a class `XImpl` and a holder `X`: a
/// shared pointer to an XImpl that constructs one from the options or the
/// options' constructor arguments (`nn::Linear(4, 3)`, `nn::Linear(
/// nn::LinearOptions(4, 3).bias(false))`), gives `->` access, calls the
/// module with hooks through `operator()`, and converts to
/// `std::shared_ptr<XImpl>` and `std::shared_ptr<Module>`. A holder made
/// from `nullptr` is empty (assign it later); using an empty holder is a
/// RuntimeError "Accessing empty ModuleHolder". Copies share the module.
/// WICK_MODULE(Net) makes the holder `Net` of a user's `NetImpl`.
namespace detail {
/// `Impl::Options`, or void when Impl has none.
template <class Impl, class = void>
struct OptionsOf {
  using Type = void;
};
template <class Impl>
struct OptionsOf<Impl, std::void_t<typename Impl::Options>> {
  using Type = typename Impl::Options;
};
/// Impl has options constructible from `Args`.
template <class Impl, class... Args>
inline constexpr bool kFromOptions = std::is_constructible_v<typename OptionsOf<Impl>::Type, Args...>;
}  // namespace detail

/// A shared handle to an `Impl` module (`nn::Linear` holds a LinearImpl);
/// see Note [Module holders]. Copies share the module.
template <class Impl>
class ModuleHolder {
 public:
  /// The module class held (`LinearImpl` for `nn::Linear`).
  using ContainedType = Impl;

  /// A default-constructed module (only when Impl has a default constructor).
  ModuleHolder()
    requires std::is_default_constructible_v<Impl>
      : impl_(std::make_shared<Impl>()) {}
  /// Empty: assign a module later.
  ModuleHolder(std::nullptr_t) noexcept {}  // NOLINT(implicit)
  /// Holds `impl` (shared with the caller; null gives an empty holder).
  ModuleHolder(std::shared_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}  // NOLINT(implicit)
  /// Impl(args...) when Impl has that constructor, else Impl(Impl::Options(args...)).
  template <class Head, class... Tail>
    requires(!std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
             !std::is_base_of_v<ModuleHolder, std::decay_t<Head>> &&
             !std::is_convertible_v<Head, std::shared_ptr<Impl>> &&
             (std::is_constructible_v<Impl, Head, Tail...> || detail::kFromOptions<Impl, Head, Tail...>))
  explicit ModuleHolder(Head&& head, Tail&&... tail) {
    if constexpr (std::is_constructible_v<Impl, Head, Tail...>) {
      impl_ = std::make_shared<Impl>(std::forward<Head>(head), std::forward<Tail>(tail)...);
    } else {
      using Options = typename detail::OptionsOf<Impl>::Type;
      impl_ = std::make_shared<Impl>(Options(std::forward<Head>(head), std::forward<Tail>(tail)...));
    }
  }

  /// Member access to the module; RuntimeError "Accessing empty ModuleHolder" when empty.
  Impl* operator->() const { return get(); }
  /// The module; RuntimeError "Accessing empty ModuleHolder" when empty.
  Impl& operator*() const { return *get(); }
  /// The module; RuntimeError when empty.
  [[nodiscard]] Impl* get() const {
    WICK_CHECK(impl_ != nullptr, RuntimeError, "Accessing empty ModuleHolder");
    return impl_.get();
  }
  /// The shared pointer held (null when empty); never throws.
  [[nodiscard]] const std::shared_ptr<Impl>& ptr() const noexcept { return impl_; }
  /// True when the holder holds no module (made from nullptr).
  [[nodiscard]] bool is_empty() const noexcept { return impl_ == nullptr; }
  /// True when the holder holds a module.
  explicit operator bool() const noexcept { return impl_ != nullptr; }
  /// `std::shared_ptr<XImpl>` or any base of it (`std::shared_ptr<Module>`).
  template <class M>
    requires std::is_base_of_v<M, Impl>
  operator std::shared_ptr<M>() const noexcept {  // NOLINT(implicit)
    return impl_;
  }
  /// Indexes the module (Sequential, ModuleList, ParameterList, ...): `(*ptr)[arg]`.
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) const
    requires requires(Impl& m) { m[std::forward<Arg>(arg)]; }
  {
    return (*get())[std::forward<Arg>(arg)];
  }
  /// Calls the module (forward hooks included): `(*ptr)(args...)`.
  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    return (*get())(std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<Impl> impl_;
};

/// Prints the held module as `operator<<(std::ostream&, const Module&)` does
/// (its repr()); RuntimeError "Accessing empty ModuleHolder" when empty.
template <class Impl>
std::ostream& operator<<(std::ostream& os, const ModuleHolder<Impl>& holder) {
  return os << static_cast<const Module&>(*holder);
}

}  // namespace wick::nn

/// Declares `Name`, the holder of `NameImpl` (Note [Module holders]), as
/// libtorch's TORCH_MODULE does.
#define WICK_MODULE(Name)                                    \
  class Name : public ::wick::nn::ModuleHolder<Name##Impl> { \
   public:                                                   \
    using ::wick::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }

namespace wick::nn::init {

/// Every initialiser fills its tensor in place (without recording a graph)
/// and returns it. RuntimeError for an undefined tensor; the random ones also
/// for a non-floating dtype. Randomness comes from the default generator
/// (wick::manual_seed).

/// Uniform on [a, b). RuntimeError when a > b.
WICK_API Tensor uniform_(Tensor tensor, double a = 0.0, double b = 1.0);
/// Normal with the given mean and standard deviation. RuntimeError when std < 0.
WICK_API Tensor normal_(Tensor tensor, double mean = 0.0, double std = 1.0);
/// Fills `tensor` with `value` in place and returns it; any dtype.
/// RuntimeError "nn.init.constant_: the tensor is undefined" when undefined.
WICK_API Tensor constant_(Tensor tensor, const Scalar& value);
/// Fills `tensor` with 0 in place and returns it (constant_ with 0); any dtype.
WICK_API Tensor zeros_(Tensor tensor);
/// Fills `tensor` with 1 in place and returns it (constant_ with 1); any dtype.
WICK_API Tensor ones_(Tensor tensor);
/// The recommended gain for a nonlinearity: 1 for linear, conv*, sigmoid;
/// 5/3 for tanh; sqrt(2) for relu; sqrt(2 / (1 + slope^2)) for leaky_relu
/// (slope `param`, default 0.01); 3/4 for selu. ValueError
/// "Unsupported nonlinearity X" otherwise.
[[nodiscard]] WICK_API double calculate_gain(std::string_view nonlinearity,
                                             std::optional<double> param = std::nullopt);
/// (fan_in, fan_out): size(1) and size(0) times the product of the remaining
/// dims. ValueError "Fan in and fan out can not be computed for tensor with
/// fewer than 2 dimensions".
[[nodiscard]] WICK_API std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);
/// Uniform on [-b, b] with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot).
WICK_API Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
/// Normal with std = gain * sqrt(2 / (fan_in + fan_out)).
WICK_API Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
/// Uniform on [-b, b] with b = gain * sqrt(3 / fan) (He), gain from
/// calculate_gain(nonlinearity, a) and fan chosen by `mode` ("fan_in" or
/// "fan_out", any case). ValueError "Mode X not supported, please use one of
/// ['fan_in', 'fan_out']". A tensor with no elements is left alone.
WICK_API Tensor kaiming_uniform_(Tensor tensor, double a = 0.0, std::string_view mode = "fan_in",
                                 std::string_view nonlinearity = "leaky_relu");
/// Normal with std = gain / sqrt(fan); arguments as kaiming_uniform_.
WICK_API Tensor kaiming_normal_(Tensor tensor, double a = 0.0, std::string_view mode = "fan_in",
                                std::string_view nonlinearity = "leaky_relu");

}  // namespace wick::nn::init
