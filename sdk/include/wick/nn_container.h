// wick/nn_container.h - Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict and Functional.
/// \file
/// The containers of torch.nn, spelled as in libtorch (Note [Module holders]):
///
///   nn::Sequential seq(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 10));
///   seq->push_back(nn::LogSoftmax(1));
///   Tensor y = seq(x);                       // each module in turn
///   std::cout << seq;                        // Sequential(\n  (0): Linear(...) ...
///   auto fc = seq->at<nn::LinearImpl>(0);    // typed access
///
/// A Sequential's entries take and return one Tensor: holders, shared
/// pointers to modules with a `forward(const Tensor&)` (or a callable
/// operator()), and plain callables `Tensor(const Tensor&)` (wrapped in
/// Functional). Indices may be negative, counted from the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/tensor.h"

namespace wick::nn {

namespace detail {
/// A holder (ModuleHolder or a WICK_MODULE) of some module.
template <class T>
concept Holder = requires { typename std::remove_cvref_t<T>::ContainedType; };
/// A shared pointer to a module.
template <class T>
concept ModulePtr = requires(const T& p) {
  typename std::remove_cvref_t<T>::element_type;
  requires std::is_base_of_v<Module, typename std::remove_cvref_t<T>::element_type>;
};
/// A shared pointer to module `M`, from a holder or a pointer.
template <class T>
auto module_ptr(T&& m) {
  if constexpr (Holder<T>) {
    return m.ptr();
  } else {
    return std::shared_ptr<typename std::remove_cvref_t<T>::element_type>(std::forward<T>(m));
  }
}
/// The position `index` (negative: from the end) names in a container of
/// `size`; IndexError "index 5 is out of range" otherwise.
WICK_API std::size_t container_index(std::int64_t index, std::size_t size);
/// TypeError: entry `index` of `container` is a `got`, not the type asked for.
[[noreturn]] WICK_API void container_type_error(const char* container, std::size_t index, const std::string& got);
}  // namespace detail

/// Wraps a callable `Tensor(const Tensor&)` as a module (printed "Functional()"):
/// `nn::Functional(wick::relu)`, or a lambda. RuntimeError when the callable is empty.
class WICK_API FunctionalImpl : public Callable<FunctionalImpl> {
 public:
  /// The callable a Functional wraps: Tensor(const Tensor&).
  using Function = std::function<Tensor(const Tensor&)>;
  /// Wraps `function`; RuntimeError "Functional: the function is empty" when it is empty.
  explicit FunctionalImpl(Function function);
  /// Also a function pointer with trailing arguments bound: Functional(wick::softmax, 1, std::nullopt).
  template <class F, class A, class... Rest>
  FunctionalImpl(F f, A a, Rest... rest)
      : FunctionalImpl(Function([f, a, rest...](const Tensor& x) -> Tensor { return f(x, a, rest...); })) {}
  /// The wrapped callable applied to `input`; what it throws passes through.
  Tensor forward(const Tensor& input);

 private:
  Function function_;
};
/// The holder of FunctionalImpl: nn::Functional(wick::relu).
WICK_MODULE(Functional);

/// Modules applied in turn (torch.nn.Sequential). Entries are registered as
/// children named "0", "1", ... (or the name given to push_back).
class WICK_API SequentialImpl : public Callable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  /// One entry per argument, in order (each as push_back takes it); ValueError for an empty holder or pointer.
  template <class... Ms>
    requires(sizeof...(Ms) > 0)
  explicit SequentialImpl(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  /// Appends a module (holder or pointer) or a callable Tensor(const Tensor&).
  template <class M>
  void push_back(M&& module) {
    push_back(std::to_string(size()), std::forward<M>(module));
  }
  /// Appends under `name`; ValueError for a name already taken.
  template <class M>
  void push_back(std::string name, M&& module) {
    if constexpr (detail::Holder<M> || detail::ModulePtr<M>) {
      auto ptr = detail::module_ptr(std::forward<M>(module));
      WICK_CHECK(ptr != nullptr, ValueError, "Sequential: cannot add an empty module");
      append(std::move(name), ptr, [ptr](const Tensor& x) -> Tensor {
        if constexpr (requires { (*ptr)(x); }) {
          return Tensor((*ptr)(x));
        } else {
          return Tensor(ptr->forward(x));
        }
      });
    } else {
      static_assert(std::is_invocable_r_v<Tensor, M, const Tensor&>,
                    "Sequential: an entry must be a module or a callable Tensor(const Tensor&)");
      auto fn = std::make_shared<FunctionalImpl>(FunctionalImpl::Function(std::forward<M>(module)));
      append(std::move(name), fn, [fn](const Tensor& x) { return (*fn)(x); });
    }
  }
  /// Appends every entry of `other` (sharing its modules).
  void extend(const SequentialImpl& other);

  /// The input through every module in turn (the input itself when empty).
  Tensor forward(const Tensor& input);

  /// Number of entries.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// Whether there are no entries.
  [[nodiscard]] bool is_empty() const noexcept { return entries_.empty(); }
  /// Entry `index`; IndexError when out of range.
  [[nodiscard]] std::shared_ptr<Module> ptr(std::int64_t index) const;
  /// Entry `index` (negative from the end), as ptr(index); IndexError when out of range.
  [[nodiscard]] std::shared_ptr<Module> operator[](std::int64_t index) const { return ptr(index); }
  /// Entry `index` as a `T` (e.g. LinearImpl); TypeError when it is not one.
  template <class T>
  [[nodiscard]] std::shared_ptr<T> ptr(std::int64_t index) const {
    auto p = std::dynamic_pointer_cast<T>(ptr(index));
    if (!p) detail::container_type_error("Sequential", detail::container_index(index, size()), ptr(index)->name());
    return p;
  }
  /// Entry `index` as a `T&` (seq->at<LinearImpl>(0)); IndexError when out of range, TypeError when it is not a `T`.
  template <class T>
  [[nodiscard]] T& at(std::int64_t index) const {
    return *ptr<T>(index);
  }

 private:
  void append(std::string name, std::shared_ptr<Module> module, std::function<Tensor(const Tensor&)> call);

  struct Entry {
    std::shared_ptr<Module> module;
    std::function<Tensor(const Tensor&)> call;
  };
  std::vector<Entry> entries_;
};
/// The holder of SequentialImpl: nn::Sequential(nn::Linear(4, 3), nn::ReLU()).
WICK_MODULE(Sequential);

/// A list of modules registered as children "0", "1", ... (torch.nn.ModuleList).
/// Not callable: iterate it in your forward.
class WICK_API ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  /// One entry per argument, in order; ValueError for an empty holder or pointer.
  template <class... Ms>
    requires(sizeof...(Ms) > 0)
  explicit ModuleListImpl(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }
  /// Appends a module (holder or pointer); ValueError for an empty one.
  template <class M>
  void push_back(M&& module) {
    append(detail::module_ptr(std::forward<M>(module)));
  }
  /// Appends every module of `other` (sharing them), named after this list's next indices.
  void extend(const ModuleListImpl& other);
  /// Number of modules.
  [[nodiscard]] std::size_t size() const noexcept { return modules_.size(); }
  /// Whether there are no modules.
  [[nodiscard]] bool is_empty() const noexcept { return modules_.empty(); }
  /// Entry `index`; IndexError when out of range.
  [[nodiscard]] std::shared_ptr<Module> ptr(std::int64_t index) const;
  /// Entry `index` (negative from the end), as ptr(index); IndexError when out of range.
  [[nodiscard]] std::shared_ptr<Module> operator[](std::int64_t index) const { return ptr(index); }
  /// Entry `index` as a `T` (e.g. LinearImpl); IndexError when out of range, TypeError when it is not a `T`.
  template <class T>
  [[nodiscard]] std::shared_ptr<T> ptr(std::int64_t index) const {
    auto p = std::dynamic_pointer_cast<T>(ptr(index));
    if (!p) detail::container_type_error("ModuleList", detail::container_index(index, size()), ptr(index)->name());
    return p;
  }
  /// Entry `index` as a `T&`; IndexError when out of range, TypeError when it is not a `T`.
  template <class T>
  [[nodiscard]] T& at(std::int64_t index) const {
    return *ptr<T>(index);
  }
  /// Iterator to the first module (a std::shared_ptr<Module>), in order.
  [[nodiscard]] auto begin() const noexcept { return modules_.begin(); }
  /// Iterator past the last module.
  [[nodiscard]] auto end() const noexcept { return modules_.end(); }

 private:
  void append(std::shared_ptr<Module> module);
  std::vector<std::shared_ptr<Module>> modules_;
};
/// The holder of ModuleListImpl: nn::ModuleList(nn::Linear(4, 3), nn::ReLU()).
WICK_MODULE(ModuleList);

/// Modules by name, in insertion order (torch.nn.ModuleDict). Not callable.
class WICK_API ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  /// The (key, module) pairs inserted in order; ValueError for a key taken twice or an empty module.
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  /// Adds `module` under `key`; ValueError "attribute 'a' already exists" when taken.
  template <class M>
  void insert(const std::string& key, M&& module) {
    insert_ptr(key, detail::module_ptr(std::forward<M>(module)));
  }
  /// The module under `key`; ValueError "ModuleDict has no key 'x'" when absent.
  [[nodiscard]] std::shared_ptr<Module> operator[](const std::string& key) const;
  /// The module under `key` as a `T`; ValueError when absent, TypeError "ModuleDict: entry 'k' is a Linear" when it is
  /// not a `T`.
  template <class T>
  [[nodiscard]] std::shared_ptr<T> ptr(const std::string& key) const {
    auto p = std::dynamic_pointer_cast<T>((*this)[key]);
    WICK_CHECK(p != nullptr, TypeError, "ModuleDict: entry '", key, "' is a ", (*this)[key]->name());
    return p;
  }
  /// Whether a module is stored under `key`.
  [[nodiscard]] bool contains(const std::string& key) const;
  /// The keys, in insertion order.
  [[nodiscard]] std::vector<std::string> keys() const;
  /// The modules, in insertion order.
  [[nodiscard]] std::vector<std::shared_ptr<Module>> values() const;
  /// Number of modules.
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }

 private:
  void insert_ptr(const std::string& key, std::shared_ptr<Module> module);
  std::vector<std::string> keys_;
  std::vector<std::shared_ptr<Module>> modules_;
};
/// The holder of ModuleDictImpl.
WICK_MODULE(ModuleDict);

/// Parameters registered as "0", "1", ... (torch.nn.ParameterList).
class WICK_API ParameterListImpl : public Module {
 public:
  ParameterListImpl() = default;
  /// Appends each of `params` in order; ValueError for an undefined tensor.
  explicit ParameterListImpl(const std::vector<Tensor>& params);
  /// Registers `param` (a leaf requiring grad when floating) as the next entry.
  void append(const Tensor& param);
  /// Number of parameters.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Entry `index` (negative from the end); IndexError when out of range.
  [[nodiscard]] Tensor operator[](std::int64_t index) const;
  [[nodiscard]] std::string extra_repr() const override;

 private:
  std::size_t size_ = 0;
};
/// The holder of ParameterListImpl.
WICK_MODULE(ParameterList);

/// Parameters by name, in insertion order (torch.nn.ParameterDict).
class WICK_API ParameterDictImpl : public Module {
 public:
  ParameterDictImpl() = default;
  /// Inserts each (key, tensor) pair in order; ValueError for an undefined tensor or a key taken twice.
  explicit ParameterDictImpl(const std::vector<std::pair<std::string, Tensor>>& params);
  /// Registers `param` under `key`; ValueError when the key is taken.
  void insert(const std::string& key, const Tensor& param);
  /// The parameter under `key`; ValueError when absent.
  [[nodiscard]] Tensor operator[](const std::string& key) const;
  /// Whether a parameter is stored under `key`.
  [[nodiscard]] bool contains(const std::string& key) const;
  /// The keys, in insertion order.
  [[nodiscard]] std::vector<std::string> keys() const { return keys_; }
  /// Number of parameters.
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }
  [[nodiscard]] std::string extra_repr() const override;

 private:
  std::vector<std::string> keys_;
};
/// The holder of ParameterDictImpl.
WICK_MODULE(ParameterDict);

}  // namespace wick::nn
