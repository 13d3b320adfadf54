// tests/robustness/catalog_values_test.cpp - every operator answers bad values with a result or a typed error.
/// \file
/// Starts from each catalog entry's working sample calls (the samples the
/// formula tests use, tests/autograd/formula_samples.h, on float32 inputs;
/// creation functions get one here) and changes one thing at a time: a
/// tensor of another dtype; mismatched or non-broadcastable shapes; dims,
/// indices and sizes out of range; huge and negative ints; zero-size and
/// 0-dim tensors; NaN and Inf values; non-contiguous and expanded inputs.
/// Every call must return or throw a wick::Error naming the operator, and a
/// call that throws must leave every tensor it was given as it was (an
/// in-place `self`, an `out=` tensor). Non-contiguous and expanded inputs
/// must give the same result as their contiguous copies, NaNs included.
/// An entry the walk cannot run is skipped only with a reason written in
/// `kNotWalked`; `EveryOperatorIsWalkedOrHasAReason` fails otherwise.
#include <algorithm>
#include <functional>
#include <limits>
#include <set>

#include "tests/autograd/formula_samples.h"
#include "tests/robustness/bad_input.h"
#include "wick/cuda.h"

namespace wick::testing {
namespace {

/// Entries the value walk leaves out, and why.
const std::map<std::string, std::string>& not_walked() {
  static const std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> out;
    for (const CatalogEntry& e : catalog_entries())
      if (is_internal_namespace(e.ns))
        out[e.qualified_name] =
            "an internal operator (the device kernels behind conv, pooling, topk and the DFTs, the three results of "
            "unique), "
            "reached by every call of the public operators this walk covers; its schema is walked by "
            "catalog_arguments_test";
    for (const CatalogEntry& e : catalog_entries()) {
      const auto tags = operator_info(e.overloads.front()).tags;
      if (std::find(tags.begin(), tags.end(), "process_group") != tags.end())
        out[e.qualified_name] =
            "a collective (tagged process_group): it needs a process group of several processes; "
            "tests/distributed runs every collective across 2 and 4 of them, with bad arguments too";
    }
    // backward and retain_grad need a graph: their samples' G[...] inputs
    // require grad, which the walk's (copies, float32) never do.
    for (const CatalogEntry& e : catalog_entries()) {
      const std::vector<std::string> samples = operator_info(e.overloads.front()).samples;
      if (std::any_of(samples.begin(), samples.end(),
                      [](const std::string& t) { return t.find("G[") != std::string::npos; }))
        out[e.qualified_name] =
            "needs an input that requires grad (its samples' G[...]), which the walk's inputs never do; "
            "Attributes.* (tests/dispatch/attributes_test.cpp) checks its errors";
    }
    // Issue 22, failure 3: left out only where no GPU was present, it was
    // walked and failed where one was. The walk is the same on every host.
    out["torch.Tensor.cuda"] =
        "moves to a CUDA device: Cuda.TensorCudaChecksItsArguments (tests/cuda) walks it where a device is";
    out["torch.Tensor.pin_memory"] =
        "copies into the CUDA runtime's pinned host memory: FakeCuda.IsPinnedAndPinMemoryAsOperators "
        "(tests/core/device_runtime_test.cpp) checks it on every host";
    return out;
  }();
  return m;
}

/// Operators whose results are random (tag random, and dropout, whose
/// samples include a p that draws): only dtype and shape can be compared.
bool random_result(const CatalogEntry& e) {
  const std::vector<std::string> tags = operator_info(e.overloads.front()).tags;
  return e.name == "dropout" || std::find(tags.begin(), tags.end(), "random") != tags.end();
}

/// An entry whose result is a memory address (tag `address`: data_ptr,
/// _cdata, register_hook's handle): two calls on two tensors give two
/// addresses, equal only when the allocator happened to reuse one.
bool address_result(const CatalogEntry& e) {
  const std::vector<std::string> tags = operator_info(e.overloads.front()).tags;
  return std::find(tags.begin(), tags.end(), "address") != tags.end();
}

// --- creation functions: a sample from the schema ---------------------------------

/// A sample for a function without tensor arguments: sizes [2, 3], ints 3,
/// numbers 2.5 (explicit ones where the schema's types say too little).
std::optional<Sample> creation_sample(const CatalogEntry& e, const FunctionSchema& s) {
  if (e.name == "tensor") return Sample{{Value::list({Value(1.5), Value(-2.0), Value(3.0)})}};
  if (e.name == "linspace") return Sample{{Value(0.0), Value(1.0), Value(5)}};
  if (e.name == "randint") return Sample{{Value(0), Value(5), Value(std::vector<std::int64_t>{2, 3})}};
  Sample out;
  for (const SchemaArgument& a : s.arguments) {
    if (a.default_value || a.kwarg_only) break;
    if (a.type.kind == TypeKind::kInt && a.type.is_list) {
      out.args.emplace_back(std::vector<std::int64_t>{2, 3});
    } else if (a.type.kind == TypeKind::kInt) {
      out.args.emplace_back(3);
    } else if (a.type.kind == TypeKind::kScalar || a.type.kind == TypeKind::kFloat) {
      out.args.emplace_back(2.5);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// --- the cases: one working sample call each ---------------------------------------

struct Case {
  CatalogEntry entry;
  Sample sample;
  std::vector<Tensor> inputs;  ///< float32, in the sample's order; never written (calls get copies)
  FunctionSchema schema;       ///< the overload the sample binds to
  Value result;                ///< what the sample returns
};

/// The overload a call by plain name binds to (Note [Overload resolution]).
std::optional<FunctionSchema> resolve(const CatalogEntry& e, const std::vector<Value>& args, const Kwargs& kw) {
  std::optional<Stack> plain;
  try {
    plain = bind_call(e.qualified_name, args, kw);
  } catch (const Error&) {
    return std::nullopt;
  }
  const FunctionSchema unnamed = find_op(e.qualified_name).schema();
  if (plain->size() == unnamed.arguments.size()) return unnamed;
  std::vector<std::string> names = e.overloads;
  std::sort(names.begin(), names.end());
  for (const std::string& full : names) {
    if (full == e.qualified_name || full.ends_with(".out")) continue;
    try {
      (void)bind_call(full, args, kw);
      return find_op(full).schema();
    } catch (const Error&) {  // NOLINT(bugprone-empty-catch): not this one
    }
  }
  return std::nullopt;
}

/// The sample's arguments with `inputs` filled in (as call_sample does).
std::pair<std::vector<Value>, Kwargs> materialise(const Sample& s, const std::vector<Tensor>& inputs) {
  std::vector<Value> args;
  std::size_t k = 0;
  for (const Arg& a : s.args) {
    if (std::holds_alternative<TensorArg>(a)) {
      args.emplace_back(inputs.at(k++));
    } else if (const auto* la = std::get_if<TensorListArg>(&a)) {
      args.emplace_back(std::vector<Tensor>(inputs.begin() + static_cast<std::ptrdiff_t>(k),
                                            inputs.begin() + static_cast<std::ptrdiff_t>(k + la->shapes.size())));
      k += la->shapes.size();
    } else {
      const Value& v = std::get<Value>(a);
      // Fixed floating tensors (weights, running statistics) in the inputs' dtype.
      args.push_back(v.is_tensor() && is_floating(v.to_tensor().dtype()) ? Value(v.to_tensor().to(ScalarType::kFloat32))
                                                                         : v);
    }
  }
  Kwargs kw = s.kwargs;
  for (auto& [name, v] : kw)
    if (name != "out" && v.is_tensor() && is_floating(v.to_tensor().dtype()))
      v = Value(v.to_tensor().to(ScalarType::kFloat32));
  return {std::move(args), std::move(kw)};
}

std::vector<Tensor> copies(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) out.push_back(t.clone());
  return out;
}

/// Every entry's samples that run, and the reasons of those that cannot.
struct Walk {
  std::vector<Case> cases;
  std::vector<std::string> unexplained;  ///< entries with no case and no reason
  std::vector<std::string> broken;       ///< samples that fail as they are
};

const Walk& walk() {
  static const Walk w = [] {
    Walk out;
    manual_seed(0);
    for (const CatalogEntry& e : catalog_entries()) {
      if (e.ns.rfind("torch", 0) != 0 && !is_internal_namespace(e.ns)) continue;
      if (not_walked().count(e.qualified_name)) continue;
      const FunctionSchema first = find_op(e.qualified_name).schema();
      std::vector<Sample> samples;
      if (has_tensor_argument(first)) {
        samples = samples_for(e);
      } else if (auto s = creation_sample(e, first)) {
        samples = {*s};
      }
      std::size_t before = out.cases.size();
      for (const Sample& s : samples) {
        Case c{e, s, {}, {}, {}};
        for (const Tensor& t : make_inputs(s, domain_of(e), ScalarType::kFloat32)) c.inputs.push_back(t.detach());
        auto [args, kw] = materialise(s, copies(c.inputs));  // in-place operators write their input
        auto schema = resolve(e, args, kw);
        const Attempt a = attempt(e.qualified_name, args, kw);
        if (!schema || !a.ok) {
          out.broken.push_back(e.qualified_name + ": " + (a.ok ? "no overload binds" : a.error + a.foreign));
          continue;
        }
        c.schema = *schema;
        c.result = a.result;
        out.cases.push_back(std::move(c));
      }
      if (out.cases.size() == before) out.unexplained.push_back(e.qualified_name);
    }
    return out;
  }();
  return w;
}

/// Calls the case's operator with `inputs` (copies: in-place operators
/// write them) and the sample `s`; checks the outcome; returns it. A call
/// that fails must leave every tensor it was given unchanged.
Attempt run(Failures& f, const Case& c, const std::string& what, const Sample& s, const std::vector<Tensor>& inputs,
            bool must_fail = false) {
  std::vector<Tensor> given = copies(inputs);
  auto [args, kw] = materialise(s, given);
  std::vector<Tensor> touched = given;
  for (const auto& [name, v] : kw)
    if (v.is_tensor()) touched.push_back(v.to_tensor());
  const std::vector<Tensor> before = snapshot(touched);
  Attempt a = attempt(c.entry.qualified_name, std::move(args), kw);
  f.check(c.entry, what, a, must_fail);
  if (!a.ok && a.foreign.empty()) {
    if (const int k = first_changed(touched, before); k >= 0)
      f.add(c.entry.qualified_name,
            what + ": the call failed but changed tensor argument " + std::to_string(k) + " (" + a.error + ")");
  }
  return a;
}

/// The indices into `c.inputs`: every tensor input of the sample.
std::vector<std::size_t> input_indices(const Case& c) {
  std::vector<std::size_t> out(c.inputs.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

/// `x`'s values in a non-contiguous tensor (every other element of a wider buffer).
Tensor non_contiguous(const Tensor& x) {
  if (x.dim() == 0) return x.clone();
  std::vector<std::int64_t> wide(x.sizes().begin(), x.sizes().end());
  wide.back() *= 2;
  Tensor buffer = zeros(IntArrayRef(wide), x.dtype());
  DimVector strides = contiguous_strides(IntArrayRef(wide));
  strides.back() *= 2;
  Tensor view = make_view(buffer, x.sizes(), IntArrayRef(strides), 0);
  view.copy_(x);
  return view;
}

/// The Sample's argument and schema argument of each positional or keyword value.
struct Slot {
  const SchemaArgument* arg;
  std::size_t position;  ///< in sample.args, or SIZE_MAX for a keyword
  std::string keyword;
};

std::vector<Slot> value_slots(const Case& c) {
  std::vector<Slot> out;
  for (std::size_t i = 0; i < c.sample.args.size() && i < c.schema.arguments.size(); ++i)
    if (std::holds_alternative<Value>(c.sample.args[i])) out.push_back({&c.schema.arguments[i], i, {}});
  for (const auto& [name, v] : c.sample.kwargs) {
    const int idx = c.schema.find_argument(name);
    if (idx >= 0) out.push_back({&c.schema.arguments[static_cast<std::size_t>(idx)], SIZE_MAX, name});
  }
  return out;
}

Sample with_value(const Sample& s, const Slot& slot, Value v) {
  Sample out = s;
  if (slot.position != SIZE_MAX) {
    out.args[slot.position] = std::move(v);
  } else {
    for (auto& [name, value] : out.kwargs)
      if (name == slot.keyword) value = v;
  }
  return out;
}

/// Sets schema argument `a` to `v`: in its position when the sample gives
/// it positionally, else as a keyword.
Sample with_argument(const Case& c, const SchemaArgument& a, Value v) {
  for (const Slot& slot : value_slots(c))
    if (slot.arg == &a) return with_value(c.sample, slot, std::move(v));
  Sample out = c.sample;
  const auto pos = static_cast<std::size_t>(&a - c.schema.arguments.data());
  if (pos < out.args.size()) return out;  // a tensor input, not a value
  out.kwargs.emplace_back(a.name, std::move(v));
  return out;
}

bool is_int_like(const SchemaArgument& a) { return a.type.kind == TypeKind::kInt; }

bool names_a_dim(const FunctionSchema& s, const SchemaArgument& a) {
  static const std::set<std::string> dim_names = {"dim", "dim0", "dim1", "dims", "start_dim", "end_dim"};
  // tile's `dims` are repeat counts (PyTorch's name for them), not dims.
  if (s.name == "tile") return false;
  return is_int_like(a) && dim_names.count(a.name) > 0;
}

Value int_value(const SchemaArgument& a, std::int64_t v) {
  return a.type.is_list ? Value(std::vector<std::int64_t>{v}) : Value(v);
}

class CatalogValues : public BadInputTest {};

TEST_F(CatalogValues, EveryOperatorIsWalkedOrHasAReason) {
  const Walk& w = walk();
  for (const std::string& b : w.broken) ADD_FAILURE() << "sample fails as it is: " << b;
  EXPECT_TRUE(w.unexplained.empty()) << "operators not walked and with no reason in not_walked(): "
                                     << ::testing::PrintToString(w.unexplained);
  std::set<std::string> walked;
  for (const Case& c : w.cases) walked.insert(c.entry.qualified_name);
  std::printf("%zu sample calls of %zu operators walked; %zu operators skipped with a reason\n", w.cases.size(),
              walked.size(), not_walked().size());
  for (const auto& [name, why] : not_walked()) std::printf("  not walked: %s: %s\n", name.c_str(), why.c_str());
  EXPECT_GT(walked.size(), 300u);
}

TEST_F(CatalogValues, TensorsOfEveryDtype) {
  Failures f;
  for (const Case& c : walk().cases) {
    for (std::size_t k : input_indices(c)) {
      for (ScalarType t : {ScalarType::kBool, ScalarType::kInt64, ScalarType::kInt32, ScalarType::kFloat64}) {
        std::vector<Tensor> in = c.inputs;
        in[k] = in[k].to(t);
        run(f, c, "input " + std::to_string(k) + " as " + std::string(dtype_name(t)), c.sample, in);
      }
    }
  }
  f.report();
}

TEST_F(CatalogValues, MismatchedAndNonBroadcastableShapes) {
  Failures f;
  for (const Case& c : walk().cases) {
    for (std::size_t k : input_indices(c)) {
      const Tensor& x = c.inputs[k];
      if (x.dim() == 0) continue;
      std::vector<std::int64_t> wider(x.sizes().begin(), x.sizes().end());
      wider.back() += 1;
      run(f, c, "input " + std::to_string(k) + " one wider", c.sample, [&] {
        auto in = c.inputs;
        in[k] = randn(IntArrayRef(wider));
        return in;
      }());
      std::vector<std::int64_t> taller = {3};
      taller.insert(taller.end(), x.sizes().begin(), x.sizes().end());
      run(f, c, "input " + std::to_string(k) + " with a leading dim of 3", c.sample, [&] {
        auto in = c.inputs;
        in[k] = randn(IntArrayRef(taller));
        return in;
      }());
      run(f, c, "input " + std::to_string(k) + " as a 0-dim tensor", c.sample, [&] {
        auto in = c.inputs;
        in[k] = randn({});
        return in;
      }());
    }
  }
  f.report();
}

TEST_F(CatalogValues, DimsOutOfRange) {
  Failures f;
  std::size_t calls = 0;
  for (const Case& c : walk().cases) {
    for (const SchemaArgument& a : c.schema.arguments) {
      if (!names_a_dim(c.schema, a)) continue;
      for (std::int64_t d : {100, -100}) {
        ++calls;
        run(f, c, a.name + "=" + std::to_string(d), with_argument(c, a, int_value(a, d)), c.inputs,
            /*must_fail=*/true);
      }
    }
  }
  std::printf("%zu calls with a dim out of range\n", calls);
  EXPECT_GT(calls, 100u);
  f.report();
}

TEST_F(CatalogValues, IndicesOutOfRange) {
  Failures f;
  std::size_t calls = 0;
  for (const Case& c : walk().cases) {
    for (const Slot& slot : value_slots(c)) {
      const Value& v =
          slot.position != SIZE_MAX ? std::get<Value>(c.sample.args[slot.position]) : [&]() -> const Value& {
        for (const auto& [name, value] : c.sample.kwargs)
          if (name == slot.keyword) return value;
        throw std::logic_error("no keyword");
      }();
      // Index tensors (gather, scatter, embedding, targets of losses); other
      // int64 tensors are data (bitwise_and's operands).
      const std::string& name = slot.arg->name;
      const bool index_arg =
          name == "index" || name == "indices" || name == "target" || (name == "input" && c.entry.name == "embedding");
      if (index_arg && v.is_tensor() && v.to_tensor().dtype() == ScalarType::kInt64 && v.to_tensor().numel() > 0) {
        for (std::int64_t bad : {1000, -1000}) {
          ++calls;
          run(f, c, slot.arg->name + " holding " + std::to_string(bad),
              with_value(c.sample, slot, Value(full_like(v.to_tensor(), Scalar(bad)))), c.inputs, /*must_fail=*/true);
        }
      }
      // Positions along a dim (select's index, narrow's start). slice_copy's
      // start is a Python slice's, clamped into the dim as PyTorch's is: an
      // empty result, no error.
      const bool clamped = c.entry.name == "slice_copy";
      if (is_int_like(*slot.arg) && !slot.arg->type.is_list && !clamped &&
          (slot.arg->name == "index" || slot.arg->name == "start")) {
        ++calls;
        run(f, c, slot.arg->name + "=1000", with_value(c.sample, slot, Value(1000)), c.inputs, /*must_fail=*/true);
      }
    }
  }
  std::printf("%zu calls with an index out of range\n", calls);
  EXPECT_GT(calls, 20u);
  f.report();
}

TEST_F(CatalogValues, HugeAndNegativeInts) {
  Failures f;
  for (const Case& c : walk().cases) {
    for (const Slot& slot : value_slots(c)) {
      if (!is_int_like(*slot.arg)) continue;
      for (std::int64_t v :
           {std::int64_t{-1}, std::int64_t{1} << 40, std::int64_t{1} << 62, std::numeric_limits<std::int64_t>::min()}) {
        run(f, c, slot.arg->name + "=" + std::to_string(v), with_value(c.sample, slot, int_value(*slot.arg, v)),
            c.inputs);
      }
      if (slot.arg->type.is_list && slot.arg->name == "size") {
        // -1 may mean "infer" or "keep" (view, expand); -2 is wrong everywhere.
        run(f, c, "size [-2, 3]", with_value(c.sample, slot, Value(std::vector<std::int64_t>{-2, 3})), c.inputs,
            /*must_fail=*/true);
        run(f, c, "size [2^32, 2^32]",
            with_value(c.sample, slot, Value(std::vector<std::int64_t>{std::int64_t{1} << 32, std::int64_t{1} << 32})),
            c.inputs, /*must_fail=*/true);
      }
    }
  }
  f.report();
}

TEST_F(CatalogValues, ZeroSizeTensors) {
  Failures f;
  for (const Case& c : walk().cases) {
    if (c.inputs.empty()) continue;
    std::vector<Tensor> all = c.inputs;
    for (Tensor& t : all)
      if (t.dim() > 0) {
        std::vector<std::int64_t> s(t.sizes().begin(), t.sizes().end());
        s.front() = 0;
        t = randn(IntArrayRef(s));
      }
    run(f, c, "inputs with a first dim of 0", c.sample, all);
    for (std::size_t k : input_indices(c)) {
      if (c.inputs[k].dim() == 0) continue;
      std::vector<std::int64_t> s(c.inputs[k].sizes().begin(), c.inputs[k].sizes().end());
      s.back() = 0;
      std::vector<Tensor> in = c.inputs;
      in[k] = randn(IntArrayRef(s));
      run(f, c, "input " + std::to_string(k) + " with a last dim of 0", c.sample, in);
    }
  }
  f.report();
}

/// Runs `in` and `reference` (the same values, laid out differently) and
/// requires the same outcome: both fail, or both return the same result.
void expect_same_outcome(Failures& f, const Case& c, const std::string& what, const std::vector<Tensor>& in,
                         const std::vector<Tensor>& reference) {
  const Attempt a = run(f, c, what, c.sample, in);
  const Attempt b = run(f, c, what + " (contiguous copy)", c.sample, reference);
  if (!a.ok || !b.ok) {
    if (a.ok != b.ok)
      f.add(c.entry.qualified_name, what + ": " +
                                        (a.ok ? "the contiguous copy failed: " + b.error
                                              : "failed where the contiguous copy works: " + a.error));
    return;
  }
  std::string why;
  if (random_result(c.entry)) {
    const Tensor x = as_one_tensor(a.result);
    const Tensor y = as_one_tensor(b.result);
    if (x.dtype() != y.dtype() || !x.sizes().equals(y.sizes()))
      f.add(c.entry.qualified_name, what + ": dtype or shape differs");
  } else if (address_result(c.entry)) {
    if (a.result.kind() != b.result.kind()) f.add(c.entry.qualified_name, what + ": results of different kinds");
  } else if (!same_result(a.result, b.result, why, 1e-4, 1e-5)) {
    f.add(c.entry.qualified_name, what + ": the result differs from the contiguous copy's: " + why);
  }
}

TEST_F(CatalogValues, NonContiguousAndExpandedInputs) {
  Failures f;
  for (const Case& c : walk().cases) {
    for (std::size_t k : input_indices(c)) {
      const Tensor& x = c.inputs[k];
      if (x.dim() == 0 || x.numel() == 0) continue;
      std::vector<Tensor> in = c.inputs;
      in[k] = non_contiguous(x);
      expect_same_outcome(f, c, "input " + std::to_string(k) + " non-contiguous", in, c.inputs);
      const auto d = std::find_if(x.sizes().begin(), x.sizes().end(), [](std::int64_t n) { return n > 1; });
      if (d == x.sizes().end()) continue;
      const auto dim = static_cast<std::int64_t>(d - x.sizes().begin());
      in[k] = x.narrow(dim, 0, 1).expand(x.sizes());
      std::vector<Tensor> reference = c.inputs;
      reference[k] = in[k].contiguous();
      expect_same_outcome(f, c, "input " + std::to_string(k) + " expanded along dim " + std::to_string(dim), in,
                          reference);
    }
  }
  f.report();
}

TEST_F(CatalogValues, NanAndInfValues) {
  Failures f;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& c : walk().cases) {
    for (std::size_t k : input_indices(c)) {
      const Tensor& x = c.inputs[k];
      if (!is_floating(x.dtype()) || x.numel() < 2) continue;
      std::vector<Tensor> in = c.inputs;
      Tensor flat = x.clone().reshape({-1});
      flat.select(0, 0).fill_(Scalar(nan));
      flat.select(0, flat.numel() - 1).fill_(Scalar(inf));
      if (flat.numel() > 2) flat.select(0, 1).fill_(Scalar(-inf));
      in[k] = flat.reshape(x.sizes());
      std::vector<Tensor> strided = in;
      strided[k] = non_contiguous(in[k]);
      expect_same_outcome(f, c, "input " + std::to_string(k) + " with NaN and Inf, non-contiguous", strided, in);
    }
  }
  f.report();
}

TEST_F(CatalogValues, OutArgumentsUntouchedOnError) {
  Failures f;
  std::size_t with_out = 0;
  for (const Case& c : walk().cases) {
    if (!try_find_op(c.entry.qualified_name + ".out") || !c.result.is_tensor()) continue;
    ++with_out;
    // A working call into out= (of the result's dtype) gives the same result.
    Sample good = c.sample;
    Tensor out = full({1}, Scalar(7), c.result.to_tensor().dtype());
    good.kwargs.emplace_back("out", Value(out));
    const Attempt a = run(f, c, "out=", good, c.inputs);
    std::string why;
    if (a.ok && !same_result(Value(out), c.result, why, 1e-5, 1e-6))
      f.add(c.entry.qualified_name, "out= holds another result than the call without it: " + why);
    // Failing calls leave out= as it was (run() checks every tensor it passes).
    for (ScalarType t : {ScalarType::kBool, ScalarType::kInt32}) {
      Sample bad = c.sample;
      bad.kwargs.emplace_back("out", Value(full({1}, Scalar(7), t)));
      run(f, c, "out= of dtype " + std::string(dtype_name(t)), bad, c.inputs);
    }
    for (std::size_t k : input_indices(c)) {
      if (c.inputs[k].dim() == 0) continue;
      std::vector<std::int64_t> wider(c.inputs[k].sizes().begin(), c.inputs[k].sizes().end());
      wider.back() += 1;
      std::vector<Tensor> in = c.inputs;
      in[k] = randn(IntArrayRef(wider));
      Sample bad = c.sample;
      bad.kwargs.emplace_back("out", Value(full({2, 2}, Scalar(7.0))));
      run(f, c, "out= with input " + std::to_string(k) + " one wider", bad, in);
    }
  }
  std::printf("%zu sample calls of operators with out=\n", with_out);
  EXPECT_GE(with_out, 6u);
  f.report();
}

}  // namespace
}  // namespace wick::testing
