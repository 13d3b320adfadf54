// core/frontend/nn_container.cpp - Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Functional.
/// \file
#include "wick/nn_container.h"

#include <algorithm>

#include "wick/dtype.h"
#include "wick/tensor_util.h"

namespace wick::nn {
namespace detail {

std::size_t container_index(std::int64_t index, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  WICK_CHECK(index >= -n && index < n, IndexError, "index ", index, " is out of range");
  return static_cast<std::size_t>(index < 0 ? index + n : index);
}

void container_type_error(const char* container, std::size_t index, const std::string& got) {
  throw TypeError(wick::detail::str_cat(container, ": entry ", index, " is a ", got,
                                        ", not the module type asked for"));
}

}  // namespace detail

namespace {

// "3x4" as PyTorch's Parameter repr in containers writes a size.
std::string size_text(const Tensor& t) {
  std::string out;
  for (std::int64_t i = 0; i < t.dim(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(t.size(i));
  }
  return out;
}

// torch.FloatTensor-style names, as ParameterDict prints them.
std::string legacy_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat32: return "torch.FloatTensor";
    case ScalarType::kFloat64: return "torch.DoubleTensor";
    case ScalarType::kFloat16: return "torch.HalfTensor";
    case ScalarType::kBFloat16: return "torch.BFloat16Tensor";
    case ScalarType::kInt64: return "torch.LongTensor";
    case ScalarType::kInt32: return "torch.IntTensor";
    case ScalarType::kBool: return "torch.BoolTensor";
    default: return "torch." + std::string(dtype_name(t));
  }
}

// Lines joined as PyTorch's container extra_repr: one line prints inline.
std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i];
  }
  return out;
}

}  // namespace

// --- Functional -------------------------------------------------------------------

FunctionalImpl::FunctionalImpl(Function function) : function_(std::move(function)) {
  WICK_CHECK(function_ != nullptr, RuntimeError, "Functional: the function is empty");
}

Tensor FunctionalImpl::forward(const Tensor& input) { return function_(input); }

// --- Sequential -------------------------------------------------------------------

void SequentialImpl::append(std::string name, std::shared_ptr<Module> module,
                            std::function<Tensor(const Tensor&)> call) {
  register_module(std::move(name), module);
  entries_.push_back(Entry{std::move(module), std::move(call)});
}

void SequentialImpl::extend(const SequentialImpl& other) {
  const std::vector<Entry> copy = other.entries_;  // `other` may be this
  for (const Entry& e : copy) append(std::to_string(size()), e.module, e.call);
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (const Entry& e : entries_) x = e.call(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(std::int64_t index) const {
  return entries_[detail::container_index(index, size())].module;
}

// --- ModuleList -------------------------------------------------------------------

void ModuleListImpl::append(std::shared_ptr<Module> module) {
  WICK_CHECK(module != nullptr, ValueError, "ModuleList: cannot add an empty module");
  register_module(std::to_string(size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  const std::vector<std::shared_ptr<Module>> copy = other.modules_;
  for (const auto& m : copy) append(m);
}

std::shared_ptr<Module> ModuleListImpl::ptr(std::int64_t index) const {
  return modules_[detail::container_index(index, size())];
}

// --- ModuleDict -------------------------------------------------------------------

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert_ptr(key, module);
}

void ModuleDictImpl::insert_ptr(const std::string& key, std::shared_ptr<Module> module) {
  WICK_CHECK(module != nullptr, ValueError, "ModuleDict: cannot add an empty module");
  register_module(key, module);
  keys_.push_back(key);
  modules_.push_back(std::move(module));
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  auto it = std::find(keys_.begin(), keys_.end(), key);
  WICK_CHECK(it != keys_.end(), ValueError, "ModuleDict has no key '", key, "'");
  return modules_[static_cast<std::size_t>(it - keys_.begin())];
}

bool ModuleDictImpl::contains(const std::string& key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

std::vector<std::string> ModuleDictImpl::keys() const { return keys_; }
std::vector<std::shared_ptr<Module>> ModuleDictImpl::values() const { return modules_; }

// --- ParameterList / ParameterDict -------------------------------------------------

ParameterListImpl::ParameterListImpl(const std::vector<Tensor>& params) {
  for (const Tensor& p : params) append(p);
}

void ParameterListImpl::append(const Tensor& param) {
  WICK_CHECK(param.defined(), ValueError, "ParameterList: cannot add an undefined tensor");
  register_parameter(std::to_string(size_), param);
  ++size_;
}

Tensor ParameterListImpl::operator[](std::int64_t index) const {
  return parameter(std::to_string(detail::container_index(index, size_)));
}

std::string ParameterListImpl::extra_repr() const {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < size_; ++i) {
    const Tensor p = parameter(std::to_string(i));
    lines.push_back("  (" + std::to_string(i) + "): Parameter containing: [torch." +
                    std::string(dtype_name(p.dtype())) + " of size " + size_text(p) + "]");
  }
  return join_lines(lines);
}

ParameterDictImpl::ParameterDictImpl(const std::vector<std::pair<std::string, Tensor>>& params) {
  for (const auto& [key, p] : params) insert(key, p);
}

void ParameterDictImpl::insert(const std::string& key, const Tensor& param) {
  WICK_CHECK(param.defined(), ValueError, "ParameterDict: cannot add an undefined tensor");
  register_parameter(key, param);
  keys_.push_back(key);
}

Tensor ParameterDictImpl::operator[](const std::string& key) const {
  WICK_CHECK(contains(key), ValueError, "ParameterDict has no key '", key, "'");
  return parameter(key);
}

bool ParameterDictImpl::contains(const std::string& key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

std::string ParameterDictImpl::extra_repr() const {
  std::vector<std::string> lines;
  for (const std::string& key : keys_) {
    const Tensor p = parameter(key);
    lines.push_back("  (" + key + "): Parameter containing: [" + legacy_type_name(p.dtype()) + " of size " +
                    size_text(p) + "]");
  }
  return join_lines(lines);
}

}  // namespace wick::nn
