// tests/fuzz/boxed_call_fuzz.cpp - libFuzzer target: wick::call over the whole catalog.
/// \file
/// The input picks a catalog operator (any entry, any overload, internal
/// `aten` ones included) and decodes into a short stack of Values and a few
/// keyword arguments (the schema's own argument names or junk ones), then
/// calls it through the boxed API. Any wick::Error is a fine answer; any
/// other exception, a sanitizer report, a leak or a hang is a bug.
///
/// Note [Bounded fuzz values]
/// Values come from a small vocabulary so that no call allocates more than a
/// few MB: tensors have at most 4 dims of at most 4 elements (0 included),
/// ints lie in [-4, 8] (plus, rarely, the int64 extremes and at most two
/// "large" 64s per input),
/// doubles are a handful of values (NaN and the infinities among them,
/// nothing smaller than 0.25 in magnitude but zero, so `arange(0, 8, step)`
/// stays short). Element values of tensors do include extremes.
///
/// Random operators (`rand`, `dropout`, `bernoulli`, ...) are not skipped:
/// the default generator is reseeded before each input, which makes every
/// input reproducible, and the backend runs on one OpenMP thread (the
/// ctest sets OMP_NUM_THREADS=1). No operator of the catalog blocks.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace {

/// Every callable name: each entry's qualified name and each of its overloads.
const std::vector<std::string>& op_names() {
  static const std::vector<std::string> names = [] {
    wick::logging::set_level(wick::logging::Level::kError);
    wick::init();
    std::vector<std::string> out;
    for (const wick::CatalogEntry& e : wick::catalog_entries()) {
      out.push_back(e.qualified_name);
      for (const std::string& o : e.overloads)
        if (o != e.qualified_name) out.push_back(o);
    }
    return out;
  }();
  return names;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kDoubles[] = {0.0, -0.0, 0.5, 1.0, -1.5, 2.0, 3.0, 0.25, -4.0, 8.0, kNaN, kInf, -kInf};
constexpr double kElements[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 7.0, 1e30, -1e-30, 4.9e-324, kNaN, kInf, -kInf};
constexpr std::int64_t kIntElements[] = {0, 1, -1, 2, 3, -4, 7, 8, std::numeric_limits<std::int64_t>::max(),
                                         std::numeric_limits<std::int64_t>::min()};
constexpr const char* kStrings[] = {"mean", "sum", "none", "constant", "reflect", "replicate", "circular",
                                    "nearest", "linear", "bilinear", "fro", "nuc", "same", "valid", "trunc",
                                    "floor", "tanh", "cpu", "cuda", "float32", "", "x\x01y"};
constexpr wick::ScalarType kDtypes[] = {wick::ScalarType::kBool, wick::ScalarType::kInt32, wick::ScalarType::kInt64,
                                        wick::ScalarType::kFloat32, wick::ScalarType::kFloat64};
constexpr const char* kJunkNames[] = {"out", "input", "self", "dim", "dtype", "keepdim", "x", "", "other"};

class Decoder {
 public:
  Decoder(const std::uint8_t* data, std::size_t size) : fdp_(data, size) {}
  FuzzedDataProvider& fdp() { return fdp_; }

  std::int64_t small_int() {
    switch (fdp_.ConsumeIntegralInRange<int>(0, 31)) {
      case 0: return std::numeric_limits<std::int64_t>::max();
      case 1: return std::numeric_limits<std::int64_t>::min();
      case 2:
        // At most two per input: five sizes of 64 made randn allocate 4 GiB.
        if (large_left_ == 0) return 4;
        --large_left_;
        return 64;
      default: return fdp_.ConsumeIntegralInRange<std::int64_t>(-4, 8);
    }
  }
  double small_double() { return fdp_.PickValueInArray(kDoubles); }

  wick::Tensor tensor(int depth_budget) {
    const wick::ScalarType dtype = fdp_.PickValueInArray(kDtypes);
    const int ndim = fdp_.ConsumeIntegralInRange<int>(0, 4);
    std::vector<std::int64_t> shape;
    for (int d = 0; d < ndim; ++d) shape.push_back(fdp_.ConsumeIntegralInRange<std::int64_t>(0, 4));
    // View kinds: 0 plain, 1 transposed, 2 expanded from a size-1 dim, 3 a narrowed slice.
    const int view = fdp_.ConsumeIntegralInRange<int>(0, 3);
    std::vector<std::int64_t> base_shape = shape;
    if (view == 2 && ndim > 0) base_shape[0] = 1;
    if (view == 3 && ndim > 0) base_shape[0] += 1;
    wick::Tensor t = wick::empty(base_shape, dtype);
    fill(t);
    if (view == 1 && ndim >= 2) t = t.transpose(0, ndim - 1);
    if (view == 2 && ndim > 0) t = t.expand(shape);
    if (view == 3 && ndim > 0) t = t.narrow(0, 1, shape[0]);
    if (depth_budget > 0 && wick::is_floating(dtype) && fdp_.ConsumeIntegralInRange<int>(0, 7) == 0) {
      t = t.detach();
      t.requires_grad_(true);
    }
    return t;
  }

  wick::Value value(int depth) {
    switch (fdp_.ConsumeIntegralInRange<int>(0, depth > 0 ? 15 : 10)) {
      case 0: return wick::Value();
      case 1: return wick::Value(fdp_.ConsumeBool());
      case 2: return wick::Value(small_int());
      case 3: return wick::Value(small_double());
      case 4: return wick::Value(std::string(fdp_.PickValueInArray(kStrings)));
      case 5:
      case 6: return wick::Value(tensor(1));
      case 7: return wick::Value(fdp_.PickValueInArray(kDtypes));
      case 8: return fdp_.ConsumeBool() ? wick::Value(wick::Device()) : wick::Value(wick::Device(wick::DeviceType::kCUDA, 0));
      case 9: {
        std::vector<std::int64_t> l(fdp_.ConsumeIntegralInRange<std::size_t>(0, 4));
        for (auto& i : l) i = small_int();
        return wick::Value(std::move(l));
      }
      case 10: {
        std::vector<double> l(fdp_.ConsumeIntegralInRange<std::size_t>(0, 3));
        for (auto& d : l) d = small_double();
        return wick::Value(std::move(l));
      }
      case 11: {
        std::vector<wick::Tensor> l;
        for (std::size_t n = fdp_.ConsumeIntegralInRange<std::size_t>(0, 3); n > 0; --n) l.push_back(tensor(0));
        return wick::Value(std::move(l));
      }
      case 12:
      case 13: {  // a generic list or tuple of anything (ints mostly, as Python passes sizes)
        std::vector<wick::Value> items;
        for (std::size_t n = fdp_.ConsumeIntegralInRange<std::size_t>(0, 4); n > 0; --n) items.push_back(value(depth - 1));
        return wick::Value::list(std::move(items), fdp_.ConsumeBool());
      }
      case 14: return wick::Value(wick::NotImplementedType{});
      default: return wick::Value(wick::Value::dict({{"a", value(depth - 1)}}));
    }
  }

 private:
  int large_left_ = 2;
  void fill(const wick::Tensor& t) {
    const std::int64_t n = t.numel();
    switch (t.dtype()) {
      case wick::ScalarType::kFloat32: {
        auto* p = t.data_ptr<float>();
        for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(fdp_.PickValueInArray(kElements));
        break;
      }
      case wick::ScalarType::kFloat64: {
        auto* p = t.data_ptr<double>();
        for (std::int64_t i = 0; i < n; ++i) p[i] = fdp_.PickValueInArray(kElements);
        break;
      }
      case wick::ScalarType::kInt64: {
        auto* p = t.data_ptr<std::int64_t>();
        for (std::int64_t i = 0; i < n; ++i) p[i] = fdp_.PickValueInArray(kIntElements);
        break;
      }
      case wick::ScalarType::kInt32: {
        auto* p = t.data_ptr<std::int32_t>();
        for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<std::int32_t>(fdp_.ConsumeIntegralInRange<int>(-4, 8));
        break;
      }
      case wick::ScalarType::kBool: {
        auto* p = t.data_ptr<bool>();
        for (std::int64_t i = 0; i < n; ++i) p[i] = fdp_.ConsumeBool();
        break;
      }
      default: break;
    }
  }

  FuzzedDataProvider fdp_;
};

/// WICK_FUZZ_VERBOSE=1: print each call before making it.
bool verbose() {
  static const bool on = std::getenv("WICK_FUZZ_VERBOSE") != nullptr;
  return on;
}

/// A value's repr, with a tensor's dtype, shape and strides (a view's repr
/// would not show that it is one).
std::string describe(const wick::Value& v) {
  if (!v.is_tensor()) return v.repr();
  const wick::Tensor& t = v.to_tensor();
  std::string out = "Tensor(" + std::string(wick::dtype_name(t.dtype())) + ", sizes=[";
  for (std::int64_t s : t.sizes()) out += std::to_string(s) + ",";
  out += "], strides=[";
  for (std::int64_t s : t.strides()) out += std::to_string(s) + ",";
  return out + "], offset=" + std::to_string(t.storage_offset()) + (t.requires_grad() ? ", grad" : "") + ", " +
         v.repr() + ")";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string>& names = op_names();
  if (size < 2 || names.empty()) return 0;
  // An input that starts with an operator's name and a newline calls that
  // operator (seeds and reproducers name theirs); any other picks one by index.
  std::string op;
  const std::string_view text(reinterpret_cast<const char*>(data), std::min<std::size_t>(size, 80));
  if (const auto nl = text.find('\n'); nl != std::string_view::npos &&
      std::find(names.begin(), names.end(), text.substr(0, nl)) != names.end()) {
    op = std::string(text.substr(0, nl));
    data += nl + 1;
    size -= nl + 1;
  }
  Decoder in(data, size);
  if (op.empty()) op = names[in.fdp().ConsumeIntegral<std::uint16_t>() % names.size()];
  wick::manual_seed(0);
  try {
    std::vector<wick::Value> args;
    for (std::size_t n = in.fdp().ConsumeIntegralInRange<std::size_t>(0, 5); n > 0; --n) args.push_back(in.value(2));
    wick::Kwargs kwargs;
    std::vector<std::string> arg_names;
    if (auto handle = wick::try_find_op(op))
      for (const wick::SchemaArgument& a : handle->schema().arguments) arg_names.push_back(a.name);
    for (std::size_t n = in.fdp().ConsumeIntegralInRange<std::size_t>(0, 3); n > 0; --n) {
      std::string name = !arg_names.empty() && in.fdp().ConsumeBool()
                             ? arg_names[in.fdp().ConsumeIntegralInRange<std::size_t>(0, arg_names.size() - 1)]
                             : std::string(in.fdp().PickValueInArray(kJunkNames));
      kwargs.emplace_back(std::move(name), in.value(2));
    }
    if (verbose()) {  // what a regression test needs to replay the input
      std::fprintf(stderr, "call %s(", op.c_str());
      for (const wick::Value& a : args) std::fprintf(stderr, "%s, ", describe(a).c_str());
      for (const auto& [k, v] : kwargs) std::fprintf(stderr, "%s=%s, ", k.c_str(), describe(v).c_str());
      std::fprintf(stderr, ")\n");
    }
    const wick::Value result = wick::call(op, std::move(args), kwargs);
    (void)result.repr();
  } catch (const wick::Error&) {
    return 0;
  } catch (const std::exception& e) {
    wick::fuzz::fuzz_unexpected(e, op);
  }
  return 0;
}
