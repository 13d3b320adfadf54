// tests/autograd/operator_catalog_test.cpp - issue 6's operator list: declared, on CPU for its dtypes, gradchecked.
/// \file
/// The acceptance check of issue 6, item 1. Every operator it lists (PyTorch
/// 1.13 names, each in its namespace) must be
///  - declared in the catalog and overridable (linspace and randint are
///    declared and ignored, as in PyTorch: they take no tensor);
///  - runnable on CPU (a CPU kernel or a composite one in its dispatch table)
///    on float32 and float64 inputs, and on int64 where PyTorch accepts
///    integers, with PyTorch's result dtype;
///  - differentiable with a formula that passes gradcheck in both modes and
///    gradgradcheck, or listed in non_differentiable() with the reason, its
///    results never requiring grad.
/// The samples are formula_samples.cpp's, shared with the catalog-wide walk
/// of formula_coverage_test.cpp. floor, ceil, round, trunc, sign and div with
/// a rounding_mode are differentiable, as in PyTorch: piecewise constant, with
/// a zero gradient that gradcheck compares with finite differences.
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "tests/autograd/formula_samples.h"
#include "tests/autograd/test_util.h"
#include "wick/catalog.h"

namespace wick::testing {
namespace {

/// A sample's result dtype for an input dtype, by PyTorch 1.13's rules.
enum class Out : std::uint8_t {
  kNone,   ///< not run: PyTorch rejects the input dtype (mean of int64, ...)
  kSame,   ///< the input's dtype
  kBool,   ///< comparisons, logical_*, all, any
  kInt64,  ///< indices (argmax, argmin)
  /// The default float: integers into float functions; to(float32). In
  /// place, self cannot hold it: a RuntimeError (int64 exp_).
  kFloat32,
  /// With a rounding_mode, the input's dtype; true division of integers
  /// gives float32, which an in-place result cannot hold (RuntimeError).
  kDivision,
};

struct Item {
  const char* name;  ///< qualified catalog name
  Out floats;        ///< with float32 and with float64 inputs
  Out int64;         ///< with int64 inputs
};

struct Group {
  const char* title;
  std::vector<Item> items;
};

// Issue 6, item 1, in its order. floor, ceil, round and trunc are not run on
// int64: PyTorch made them no-ops for integers in pytorch#85144, around 1.13's
// branch cut (wick returns the input, as later PyTorch does). The in-place
// methods are PyTorch 1.13's twins of the operators above that wick has
// (Note [In-place twins]); comparisons in place keep self's dtype.
const std::vector<Group>& item1() {
  using enum Out;
  static const std::vector<Group> groups = {
      {"unary",
       {{"torch.abs", kSame, kSame},           {"torch.neg", kSame, kSame},      {"torch.exp", kSame, kFloat32},
        {"torch.exp2", kSame, kFloat32},       {"torch.expm1", kSame, kFloat32}, {"torch.log", kSame, kFloat32},
        {"torch.log2", kSame, kFloat32},       {"torch.log10", kSame, kFloat32}, {"torch.log1p", kSame, kFloat32},
        {"torch.sqrt", kSame, kFloat32},       {"torch.rsqrt", kSame, kFloat32}, {"torch.sin", kSame, kFloat32},
        {"torch.cos", kSame, kFloat32},        {"torch.tan", kSame, kFloat32},   {"torch.asin", kSame, kFloat32},
        {"torch.acos", kSame, kFloat32},       {"torch.atan", kSame, kFloat32},  {"torch.sinh", kSame, kFloat32},
        {"torch.cosh", kSame, kFloat32},       {"torch.tanh", kSame, kFloat32},  {"torch.sigmoid", kSame, kFloat32},
        {"torch.erf", kSame, kFloat32},        {"torch.floor", kSame, kNone},    {"torch.ceil", kSame, kNone},
        {"torch.round", kSame, kNone},         {"torch.trunc", kSame, kNone},    {"torch.sign", kSame, kSame},
        {"torch.reciprocal", kSame, kFloat32}, {"torch.square", kSame, kSame},   {"torch.clamp", kSame, kSame}}},
      {"binary",
       {{"torch.add", kSame, kSame},         {"torch.sub", kSame, kSame},         {"torch.mul", kSame, kSame},
        {"torch.div", kSame, kDivision},     {"torch.pow", kSame, kSame},         {"torch.maximum", kSame, kSame},
        {"torch.minimum", kSame, kSame},     {"torch.fmod", kSame, kSame},        {"torch.remainder", kSame, kSame},
        {"torch.atan2", kSame, kFloat32},    {"torch.eq", kBool, kBool},          {"torch.ne", kBool, kBool},
        {"torch.lt", kBool, kBool},          {"torch.le", kBool, kBool},          {"torch.gt", kBool, kBool},
        {"torch.ge", kBool, kBool},          {"torch.logical_and", kBool, kBool}, {"torch.logical_or", kBool, kBool},
        {"torch.logical_not", kBool, kBool}, {"torch.logical_xor", kBool, kBool}, {"torch.where", kSame, kSame},
        {"torch.lerp", kSame, kNone}}},
      {"reductions",
       {{"torch.sum", kSame, kSame},
        {"torch.mean", kSame, kNone},
        {"torch.prod", kSame, kSame},
        {"torch.max", kSame, kSame},
        {"torch.min", kSame, kSame},
        {"torch.amax", kSame, kSame},
        {"torch.amin", kSame, kSame},
        {"torch.argmax", kInt64, kInt64},
        {"torch.argmin", kInt64, kInt64},
        {"torch.var", kSame, kNone},
        {"torch.std", kSame, kNone},
        {"torch.norm", kSame, kNone},
        {"torch.logsumexp", kSame, kNone},
        {"torch.cumsum", kSame, kSame},
        {"torch.cumprod", kSame, kSame},
        {"torch.all", kBool, kBool},
        {"torch.any", kBool, kBool}}},
      {"linear algebra",
       {{"torch.mm", kSame, kSame},
        {"torch.bmm", kSame, kSame},
        {"torch.matmul", kSame, kSame},
        {"torch.addmm", kSame, kSame},
        {"torch.dot", kSame, kSame},
        {"torch.mv", kSame, kSame},
        {"torch.outer", kSame, kSame},
        {"torch.linalg.vector_norm", kSame, kNone},
        {"torch.linalg.matrix_norm", kSame, kNone}}},
      {"shape and indexing",
       {{"torch.Tensor.view", kSame, kSame},
        {"torch.reshape", kSame, kSame},
        {"torch.flatten", kSame, kSame},
        {"torch.unflatten", kSame, kSame},
        {"torch.transpose", kSame, kSame},
        {"torch.permute", kSame, kSame},
        {"torch.squeeze", kSame, kSame},
        {"torch.unsqueeze", kSame, kSame},
        {"torch.Tensor.expand", kSame, kSame},
        {"torch.Tensor.expand_as", kSame, kSame},
        {"torch.cat", kSame, kSame},
        {"torch.stack", kSame, kSame},
        {"torch.split", kSame, kSame},
        {"torch.chunk", kSame, kSame},
        {"torch.narrow", kSame, kSame},
        {"torch.select", kSame, kSame},
        {"torch.index_select", kSame, kSame},
        {"torch.gather", kSame, kSame},
        {"torch.scatter", kSame, kSame},
        {"torch.masked_fill", kSame, kSame},
        {"torch.Tensor.repeat", kSame, kSame},
        {"torch.flip", kSame, kSame},
        {"torch.roll", kSame, kSame},
        {"torch.tril", kSame, kSame},
        {"torch.triu", kSame, kSame},
        {"torch.clone", kSame, kSame},
        {"torch.Tensor.contiguous", kSame, kSame},
        {"torch.Tensor.to", kFloat32, kFloat32}}},
      {"torch.nn.functional",
       {{"torch.nn.functional.linear", kSame, kNone},
        {"torch.nn.functional.relu", kSame, kNone},
        {"torch.nn.functional.leaky_relu", kSame, kNone},
        {"torch.nn.functional.elu", kSame, kNone},
        {"torch.nn.functional.gelu", kSame, kNone},  // both approximations: two samples
        {"torch.nn.functional.silu", kSame, kNone},
        {"torch.nn.functional.softmax", kSame, kNone},
        {"torch.nn.functional.log_softmax", kSame, kNone},
        {"torch.nn.functional.dropout", kSame, kNone},
        {"torch.nn.functional.mse_loss", kSame, kNone},
        {"torch.nn.functional.l1_loss", kSame, kNone},
        {"torch.nn.functional.cross_entropy", kSame, kNone},
        {"torch.nn.functional.nll_loss", kSame, kNone},
        {"torch.nn.functional.binary_cross_entropy", kSame, kNone},
        {"torch.nn.functional.binary_cross_entropy_with_logits", kSame, kNone},
        {"torch.nn.functional.conv1d", kSame, kNone},
        {"torch.nn.functional.conv2d", kSame, kNone},
        {"torch.nn.functional.max_pool2d", kSame, kNone},
        {"torch.nn.functional.avg_pool2d", kSame, kNone},
        {"torch.nn.functional.adaptive_avg_pool1d", kSame, kNone},
        {"torch.nn.functional.adaptive_avg_pool2d", kSame, kNone},
        {"torch.nn.functional.batch_norm", kSame, kNone},
        {"torch.nn.functional.layer_norm", kSame, kNone},
        {"torch.nn.functional.group_norm", kSame, kNone},
        {"torch.nn.functional.embedding", kSame, kNone},
        {"torch.nn.functional.pad", kSame, kNone}}},
      // linspace and randint take no tensor: checked by creation_without_tensors().
      {"creation",
       {{"torch.zeros_like", kSame, kSame},
        {"torch.ones_like", kSame, kSame},
        {"torch.full_like", kSame, kSame},
        {"torch.rand_like", kSame, kNone},
        {"torch.randn_like", kSame, kNone},
        {"torch.linspace", kNone, kNone},
        {"torch.randint", kNone, kNone}}},
      {"in-place methods",
       {{"torch.Tensor.add_", kSame, kSame},
        {"torch.Tensor.sub_", kSame, kSame},
        {"torch.Tensor.mul_", kSame, kSame},
        {"torch.Tensor.div_", kSame, kDivision},
        {"torch.Tensor.fill_", kSame, kSame},
        {"torch.Tensor.copy_", kSame, kSame},
        {"torch.Tensor.__iadd__", kSame, kSame},
        {"torch.Tensor.__isub__", kSame, kSame},
        {"torch.Tensor.__imul__", kSame, kSame},
        {"torch.Tensor.__itruediv__", kSame, kDivision},
        {"torch.Tensor.__idiv__", kSame, kDivision},
        {"torch.Tensor.zero_", kSame, kSame},
        {"torch.Tensor.abs_", kSame, kSame},
        {"torch.Tensor.neg_", kSame, kSame},
        {"torch.Tensor.exp_", kSame, kFloat32},
        {"torch.Tensor.exp2_", kSame, kFloat32},
        {"torch.Tensor.expm1_", kSame, kFloat32},
        {"torch.Tensor.log_", kSame, kFloat32},
        {"torch.Tensor.log2_", kSame, kFloat32},
        {"torch.Tensor.log10_", kSame, kFloat32},
        {"torch.Tensor.log1p_", kSame, kFloat32},
        {"torch.Tensor.sqrt_", kSame, kFloat32},
        {"torch.Tensor.rsqrt_", kSame, kFloat32},
        {"torch.Tensor.sin_", kSame, kFloat32},
        {"torch.Tensor.cos_", kSame, kFloat32},
        {"torch.Tensor.tan_", kSame, kFloat32},
        {"torch.Tensor.asin_", kSame, kFloat32},
        {"torch.Tensor.acos_", kSame, kFloat32},
        {"torch.Tensor.atan_", kSame, kFloat32},
        {"torch.Tensor.sinh_", kSame, kFloat32},
        {"torch.Tensor.cosh_", kSame, kFloat32},
        {"torch.Tensor.tanh_", kSame, kFloat32},
        {"torch.Tensor.sigmoid_", kSame, kFloat32},
        {"torch.Tensor.erf_", kSame, kFloat32},
        {"torch.Tensor.relu_", kSame, kSame},
        {"torch.Tensor.floor_", kSame, kNone},
        {"torch.Tensor.ceil_", kSame, kNone},
        {"torch.Tensor.round_", kSame, kNone},
        {"torch.Tensor.trunc_", kSame, kNone},
        {"torch.Tensor.sign_", kSame, kSame},
        {"torch.Tensor.reciprocal_", kSame, kFloat32},
        {"torch.Tensor.square_", kSame, kSame},
        {"torch.Tensor.clamp_", kSame, kSame},
        {"torch.Tensor.pow_", kSame, kSame},
        {"torch.Tensor.__ipow__", kSame, kSame},
        {"torch.Tensor.fmod_", kSame, kSame},
        {"torch.Tensor.remainder_", kSame, kSame},
        {"torch.Tensor.__imod__", kSame, kSame},
        {"torch.Tensor.atan2_", kSame, kFloat32},
        {"torch.Tensor.lerp_", kSame, kNone},
        {"torch.Tensor.eq_", kSame, kSame},
        {"torch.Tensor.ne_", kSame, kSame},
        {"torch.Tensor.lt_", kSame, kSame},
        {"torch.Tensor.le_", kSame, kSame},
        {"torch.Tensor.gt_", kSame, kSame},
        {"torch.Tensor.ge_", kSame, kSame},
        {"torch.Tensor.logical_and_", kSame, kSame},
        {"torch.Tensor.logical_or_", kSame, kSame},
        {"torch.Tensor.logical_xor_", kSame, kSame},
        {"torch.Tensor.logical_not_", kSame, kSame},
        {"torch.Tensor.addmm_", kSame, kSame},
        {"torch.Tensor.cumsum_", kSame, kSame},
        {"torch.Tensor.cumprod_", kSame, kSame},
        {"torch.Tensor.masked_fill_", kSame, kSame},
        {"torch.Tensor.scatter_", kSame, kSame},
        {"torch.Tensor.scatter_add_", kSame, kSame},
        {"torch.Tensor.tril_", kSame, kSame},
        {"torch.Tensor.triu_", kSame, kSame},
        {"torch.Tensor.transpose_", kSame, kSame},
        {"torch.Tensor.t_", kSame, kSame},
        {"torch.Tensor.squeeze_", kSame, kSame},
        {"torch.Tensor.unsqueeze_", kSame, kSame}}},
  };
  return groups;
}

// The item-1 operators without a gradient, and why.
const std::map<std::string, std::string>& non_differentiable() {
  static const std::map<std::string, std::string> reasons = [] {
    std::map<std::string, std::string> m;
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"})
      m[std::string("torch.") + op] = "comparison: bool result";
    for (const char* op : {"logical_and", "logical_or", "logical_not", "logical_xor"})
      m[std::string("torch.") + op] = "logical: bool result";
    m["torch.argmax"] = m["torch.argmin"] = "an index: int64 result";
    m["torch.all"] = m["torch.any"] = "bool result";
    for (const char* op : {"zeros_like", "ones_like", "full_like", "rand_like", "randn_like"})
      m[std::string("torch.") + op] = "creation: uses only the input's shape, dtype and device";
    m["torch.linspace"] = m["torch.randint"] = "creation: no tensor argument";
    return m;
  }();
  return reasons;
}

// Ignored by the override protocol in PyTorch 1.13 (no tensor argument).
bool expected_ignored(const std::string& name) { return name == "torch.linspace" || name == "torch.randint"; }

// int64 samples where the shared ones pass a float for an argument that
// PyTorch casts to the tensor's dtype (fill values).
const std::map<std::string, std::vector<Sample>>& int_samples() {
  static const std::map<std::string, std::vector<Sample>> samples = {
      {"torch.full_like", {{{TensorArg{{2, 3}}, Value(7)}}}},
      {"torch.Tensor.fill_", {{{TensorArg{{2, 3}}, Value(2)}}}},
  };
  return samples;
}

// A float among the fixed arguments promotes an integer result (clamp(x, -1.0),
// addmm(beta=0.5)) or is rejected: such samples are not run on int64.
bool has_float_value(const Sample& s) {
  for (const Arg& a : s.args)
    if (const auto* v = std::get_if<Value>(&a); v != nullptr && v->is_double()) return true;
  for (const auto& [name, v] : s.kwargs)
    if (v.is_double()) return true;
  return false;
}

// nullopt: the call must throw RuntimeError.
std::optional<ScalarType> expected_dtype(Out out, ScalarType input, const Sample& s, bool inplace) {
  switch (out) {
    case Out::kSame:
      return input;
    case Out::kBool:
      return ScalarType::kBool;
    case Out::kInt64:
      return ScalarType::kInt64;
    case Out::kFloat32:
      return inplace ? std::nullopt : std::optional(ScalarType::kFloat32);
    case Out::kDivision: {
      for (const auto& [name, v] : s.kwargs)
        if (name == "rounding_mode" && !v.is_none()) return input;
      if (is_floating(input)) return input;
      return inplace ? std::nullopt : std::optional(kDefaultFloat);
    }
    case Out::kNone:
      break;
  }
  return std::nullopt;
}

std::map<std::string, CatalogEntry> entries_by_name() {
  std::map<std::string, CatalogEntry> out;
  for (CatalogEntry& e : catalog_entries()) out.emplace(e.qualified_name, std::move(e));
  return out;
}

std::size_t count_items() {
  std::size_t n = 0;
  for (const Group& g : item1()) n += g.items.size();
  return n;
}

class OperatorCatalog : public AutogradTest {};

TEST_F(OperatorCatalog, Issue6OperatorsAreDeclared) {
  const auto entries = entries_by_name();
  std::set<std::string> seen;
  for (const Group& g : item1()) {
    for (const Item& item : g.items) {
      EXPECT_TRUE(seen.insert(item.name).second) << item.name << " is listed twice";
      auto it = entries.find(item.name);
      if (it == entries.end()) {
        ADD_FAILURE() << g.title << ": " << item.name << " is not declared in the catalog";
        continue;
      }
      EXPECT_EQ(it->second.ignored, expected_ignored(item.name))
          << g.title << ": " << item.name << (expected_ignored(item.name) ? " is overridable" : " is ignored")
          << ", unlike PyTorch 1.13";
    }
  }
  for (const auto& [name, reason] : non_differentiable())
    EXPECT_TRUE(seen.count(name)) << name << " is listed as non-differentiable but is not an item-1 operator";
  std::printf("issue 6 item 1: %zu operators declared\n", count_items());
  EXPECT_EQ(seen.size(), count_items());
}

// One item's samples on one input dtype: the call gives the expected dtype
// (or throws, for true division in place on integers); integer and bool results, and the
// indices of max/min, never require grad; in-place methods return self.
void run_on(const CatalogEntry& e, const Item& item, ScalarType dtype, std::size_t& runs) {
  const Out out = is_floating(dtype) ? item.floats : item.int64;
  if (out == Out::kNone) return;
  const bool inplace = writes_first_argument(find_op(e.overloads.front()).schema());
  std::vector<Sample> samples = samples_for(e);
  if (dtype == ScalarType::kInt64) {
    if (auto it = int_samples().find(item.name); it != int_samples().end()) samples = it->second;
    std::erase_if(samples, has_float_value);
  }
  std::size_t ran = 0;
  for (std::size_t n = 0; n < samples.size(); ++n) {
    const Sample& s = samples[n];
    const std::string where =
        std::string(item.name) + " on " + std::string(dtype_name(dtype)) + " (sample " + std::to_string(n) + ")";
    autograd::tensor_list inputs = make_inputs(s, domain_of(e), dtype);
    if (inplace && inputs.empty()) {
      ADD_FAILURE() << where << ": an in-place sample without an input tensor to write";
      continue;
    }
    if (inplace) {
      for (Tensor& x : inputs) x = x.detach();
    }
    ++ran;
    const std::optional<ScalarType> want = expected_dtype(out, dtype, s, inplace);
    if (!want) {
      EXPECT_THROW((void)call_sample(item.name, s, inputs, false, dtype), RuntimeError) << where;
      continue;
    }
    try {
      const std::uint32_t version = inplace ? inputs[0].version() : 0;
      const Value r = call_sample(item.name, s, inputs, false, dtype);
      const Tensor result = as_one_tensor(r);
      EXPECT_EQ(dtype_name(result.dtype()), dtype_name(*want)) << where;
      if (!autograd::is_differentiable_type(*want) || non_differentiable().count(item.name)) {
        EXPECT_FALSE(result.requires_grad()) << where;
      }
      if (r.is_tuple()) {
        for (std::size_t k = 1; k < r.items().size(); ++k) {  // max.dim / min.dim: the indices
          EXPECT_EQ(r.items()[k].to_tensor().dtype(), ScalarType::kInt64) << where;
          EXPECT_FALSE(r.items()[k].to_tensor().requires_grad()) << where;
        }
      }
      if (inplace) {
        EXPECT_TRUE(result.is_same(inputs[0])) << where << ": an in-place method returns self";
        EXPECT_GT(inputs[0].version(), version) << where << ": no version bump";
      }
    } catch (const std::exception& err) {
      ADD_FAILURE() << where << ": " << err.what();
    }
  }
  EXPECT_GT(ran, 0u) << item.name << " has no sample to run on " << dtype_name(dtype);
  runs += ran;
}

// The CPU column of an entry's dispatch table: "kernel" (the CPU backend's
// own, possibly through an alias) or "composite"; empty when neither.
std::string cpu_support(const CatalogEntry& e) {
  std::string found;
  for (const std::string& overload : e.overloads) {
    for (const DispatchTableRow& row : dispatch_table(overload)) {
      if (row.key != DispatchKey::kCPU) continue;
      if (row.source == "kernel" || row.source == "alias") return "kernel";
      if (row.source == "composite") found = "composite";
    }
  }
  return found;
}

// linspace and randint: creation functions, their results never require grad.
void creation_without_tensors(std::size_t& runs) {
  const auto check = [&](const char* op, std::vector<Value> args, const Kwargs& kwargs, ScalarType want) {
    try {
      const Tensor r = call(op, std::move(args), kwargs).to_tensor();
      EXPECT_EQ(dtype_name(r.dtype()), dtype_name(want)) << op;
      EXPECT_FALSE(r.requires_grad()) << op;
    } catch (const std::exception& err) {
      ADD_FAILURE() << op << ": " << err.what();
    }
    ++runs;
  };
  const Value f64(ScalarType::kFloat64);
  check("torch.linspace", {Value(0), Value(1), Value(5)}, {}, ScalarType::kFloat32);
  check("torch.linspace", {Value(-1.5), Value(2.0), Value(4)}, {{"dtype", f64}}, ScalarType::kFloat64);
  check("torch.randint", {Value(10), Value(std::vector<std::int64_t>{2, 3})}, {}, ScalarType::kInt64);
  check("torch.randint", {Value(-3), Value(3), Value(std::vector<std::int64_t>{4})}, {}, ScalarType::kInt64);
}

TEST_F(OperatorCatalog, Issue6OperatorsRunOnCpuForTheirDtypes) {
  const auto entries = entries_by_name();
  std::size_t runs = 0;
  std::size_t kernels = 0;
  std::size_t composites = 0;
  for (const Group& g : item1()) {
    for (const Item& item : g.items) {
      auto it = entries.find(item.name);
      if (it == entries.end()) continue;  // reported by Issue6OperatorsAreDeclared
      const std::string cpu = cpu_support(it->second);
      EXPECT_FALSE(cpu.empty()) << g.title << ": " << item.name << " has no CPU or composite kernel";
      kernels += cpu == "kernel" ? 1 : 0;
      composites += cpu == "composite" ? 1 : 0;
      if (expected_ignored(item.name)) continue;
      EXPECT_FALSE(samples_for(it->second).empty()) << item.name << " has no sample";
      for (ScalarType dtype : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kInt64})
        run_on(it->second, item, dtype, runs);
    }
  }
  creation_without_tensors(runs);
  std::printf("issue 6 item 1: %zu CPU kernels, %zu composite; %zu sample runs\n", kernels, composites, runs);
}

TEST_F(OperatorCatalog, Issue6OperatorsPassGradcheckOrAreNonDifferentiable) {
  const auto entries = entries_by_name();
  std::size_t gradchecked = 0;
  std::size_t samples = 0;
  for (const Group& g : item1()) {
    for (const Item& item : g.items) {
      auto it = entries.find(item.name);
      if (it == entries.end()) continue;
      const FormulaCheck r = check_formula(it->second);
      for (const std::string& failure : r.failures) ADD_FAILURE() << g.title << ": " << failure;
      const auto reason = non_differentiable().find(item.name);
      if (reason == non_differentiable().end()) {
        EXPECT_EQ(r.kind, FormulaCheck::Kind::kGradchecked) << g.title << ": " << item.name << " was not gradchecked";
        if (r.kind == FormulaCheck::Kind::kGradchecked && r.failures.empty()) ++gradchecked;
        samples += r.samples;
      } else if (r.kind != FormulaCheck::Kind::kNoTensorArgument) {
        EXPECT_EQ(r.kind, FormulaCheck::Kind::kNonDifferentiable)
            << g.title << ": " << item.name << " is listed as non-differentiable (" << reason->second
            << ") but its result is floating point";
      }
    }
  }
  std::printf(
      "issue 6 item 1: %zu differentiable operators passed gradcheck (%zu samples), %zu are not differentiable\n",
      gradchecked, samples, non_differentiable().size());
  EXPECT_EQ(gradchecked + non_differentiable().size(), count_items());
}

}  // namespace
}  // namespace wick::testing
