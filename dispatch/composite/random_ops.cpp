// dispatch/composite/random_ops.cpp - random sampling: rand_like, randn_like, randint_like, randperm, bernoulli,
// normal, multinomial, poisson, and the in-place fills (uniform_, normal_, random_, exponential_, geometric_, cauchy_, log_normal_,
// bernoulli_).
/// \file
/// Every value is drawn on the CPU from the default generator with PyTorch
/// 1.13's transforms (Note [PyTorch's random numbers], wick/random.h), in
/// the order of the elements in memory, as PyTorch's fills draw them, then
/// written to the tensor's device: after manual_seed, a CPU tensor gets
/// PyTorch's numbers bit for bit, and a CUDA tensor the same ones (PyTorch's
/// CUDA generator draws others). A meta tensor gets no values. The in-place
/// fills check their arguments with PyTorch's messages before the dtype, as
/// PyTorch does (uniform_ checks the dtype first), and refuse a leaf that
/// requires grad; the result carries no gradient to what self held before.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

#include "core/autograd/autograd_meta.h"
#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;
const Device kCpu(DeviceType::kCPU);

// self with its dims in memory order (largest stride first): PyTorch's
// fills draw the values in the order of the elements in memory, so a
// transposed tensor gets them column by column.
Tensor in_memory_order(const Tensor& self) {
  DimVector order(static_cast<std::size_t>(self.dim()));
  std::iota(order.begin(), order.end(), I64{0});
  std::stable_sort(order.begin(), order.end(), [&](I64 a, I64 b) { return self.strides()[a] > self.strides()[b]; });
  return self.permute(order);
}

// self's elements replaced by `values` (a CPU tensor of in_memory_order(self)'s
// shape), in self's dtype and on its device.
Tensor write_values(const Tensor& self, const Tensor& values) {
  Tensor target = in_memory_order(self);
  target.copy_(values);
  return self;
}

// self filled with values computed in double by `fill(double* out, n)`.
template <typename Fill>
Tensor fill_in_double(const Tensor& self, const char* op, Fill&& fill) {
  autograd::check_inplace(self, op);
  if (self.device().is_meta()) return self;
  Tensor values = empty(in_memory_order(self).sizes(), ScalarType::kFloat64, kCpu);
  fill(values.data_ptr<double>(), values.numel());
  return write_values(self, values);
}

// self filled with the generator's uniform or normal values: in float32 for
// float32 (its own transform), else in float64 (Note [PyTorch's random numbers]).
template <bool kNormal>
Tensor fill_continuous(const Tensor& self, const char* op, double a, double b) {
  autograd::check_inplace(self, op);
  if (self.device().is_meta()) return self;
  Generator& g = default_generator();
  const ScalarType compute = self.dtype() == ScalarType::kFloat32 ? ScalarType::kFloat32 : ScalarType::kFloat64;
  Tensor values = empty(in_memory_order(self).sizes(), compute, kCpu);
  const auto draw = [&](auto* p) {
    if constexpr (kNormal) {
      g.normal(p, values.numel(), a, b);
    } else {
      g.uniform(p, values.numel(), a, b);
    }
  };
  if (compute == ScalarType::kFloat32) {
    draw(values.data_ptr<float>());
  } else {
    draw(values.data_ptr<double>());
  }
  return write_values(self, values);
}

void check_dtype(const Tensor& self, bool ok, const char* kernel) {
  WICK_CHECK(ok, RuntimeError, "\"", kernel, "\" not implemented for '", type_title(self.dtype()), "'");
}

Tensor uniform_kernel(const Tensor& self, double from, double to) {
  check_dtype(self, is_floating(self.dtype()), "check_uniform_bounds");
  WICK_CHECK(from <= to, RuntimeError, "uniform_ expects to return a [from, to) range, but found from=", from,
             " > to=", to);
  return fill_continuous<false>(self, "uniform_", from, to);
}

Tensor normal_inplace_kernel(const Tensor& self, double mean, double std) {
  WICK_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
  check_dtype(self, is_floating(self.dtype()), "normal_kernel_cpu");
  return fill_continuous<true>(self, "normal_", mean, std);
}

Tensor exponential_kernel(const Tensor& self, double lambd) {
  WICK_CHECK(lambd >= 0.0, RuntimeError, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  check_dtype(self, is_floating(self.dtype()), "exponential_cpu");
  return fill_in_double(self, "exponential_", [&](double* p, I64 n) { default_generator().exponential(p, n, lambd); });
}

Tensor geometric_kernel(const Tensor& self, double p) {
  WICK_CHECK(p > 0.0 && p < 1.0, RuntimeError, "geometric_ expects p to be in (0, 1), but got p=", p);
  check_dtype(self, is_floating(self.dtype()) || is_integral(self.dtype(), false), "geometric_cpu");
  return fill_in_double(self, "geometric_", [&](double* v, I64 n) { default_generator().geometric(v, n, p); });
}

Tensor cauchy_kernel(const Tensor& self, double median, double sigma) {
  check_dtype(self, is_floating(self.dtype()), "cauchy_cpu");
  return fill_in_double(self, "cauchy_", [&](double* p, I64 n) { default_generator().cauchy(p, n, median, sigma); });
}

Tensor log_normal_kernel(const Tensor& self, double mean, double std) {
  WICK_CHECK(std > 0.0, RuntimeError, "log_normal_ expects std > 0.0, but found std=", std);
  check_dtype(self, is_floating(self.dtype()), "log_normal_cpu");
  return fill_in_double(self, "log_normal_",
                        [&](double* p, I64 n) { default_generator().log_normal(p, n, mean, std); });
}

// --- random_ ---------------------------------------------------------------------------------

// [lowest, highest] of the integers `t` holds exactly: its range for
// integers and bool; for floating types +-2^digits, the whole numbers a
// float holds without a gap (random_() without arguments draws in
// [0, 2^digits]).
std::tuple<double, double> random_bounds(ScalarType t) {
  switch (t) {
    case ScalarType::kInt8:
      return {-128.0, 127.0};
    case ScalarType::kInt16:
      return {-32768.0, 32767.0};
    case ScalarType::kInt32:
      return {-2147483648.0, 2147483647.0};
    case ScalarType::kInt64:
      return {-0x1p63, 0x1p63};
    case ScalarType::kUInt8:
      return {0.0, 255.0};
    case ScalarType::kBool:
      return {0.0, 1.0};
    case ScalarType::kFloat16:
      return {-0x1p11, 0x1p11};
    case ScalarType::kBFloat16:
      return {-0x1p8, 0x1p8};
    case ScalarType::kFloat32:
      return {-0x1p24, 0x1p24};
    default:
      return {-0x1p53, 0x1p53};
  }
}

// self filled with integers in [from, from + range).
Tensor fill_integers(const Tensor& self, I64 from, std::uint64_t range) {
  autograd::check_inplace(self, "random_");
  if (self.device().is_meta()) return self;
  Tensor values = empty(in_memory_order(self).sizes(), ScalarType::kInt64, kCpu);
  default_generator().integers_in_range(values.data_ptr<I64>(), values.numel(), from, range);
  return write_values(self, values);
}

// random_(from, to): integers in [from, to), both inside self's dtype
// (checked as PyTorch checks them: floating dtypes take any range).
Tensor random_from_to(const Tensor& self, I64 from, I64 to) {
  WICK_CHECK(from < to, RuntimeError, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", to);
  const ScalarType t = self.dtype();
  WICK_CHECK(!is_complex(t), RuntimeError,
             "check_random_bounds handles only integral, floating-point and boolean types");
  if (!is_floating(t)) {
    const auto [low, high] = random_bounds(t);
    WICK_CHECK(static_cast<double>(from) >= low && static_cast<double>(from) <= high, RuntimeError,
               "from is out of bounds for ", cpp_type_name(t));
    WICK_CHECK(static_cast<double>(to - 1) >= low && static_cast<double>(to - 1) <= high, RuntimeError,
               "to - 1 is out of bounds for ", cpp_type_name(t));
  }
  return fill_integers(self, from, static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from));
}

// random_(from, None): [from, the dtype's largest integer + 1); floating
// dtypes end at 2^digits + 1.
Tensor random_from_kernel(const Tensor& self, I64 from, std::optional<I64> to) {
  if (to) return random_from_to(self, from, *to);
  const ScalarType t = self.dtype();
  WICK_CHECK(!is_complex(t), RuntimeError,
             "check_random_bounds handles only integral, floating-point and boolean types");
  const auto [low, high] = random_bounds(t);
  WICK_CHECK(static_cast<double>(from) >= low && static_cast<double>(from) <= high, RuntimeError,
             "from is out of bounds for ", cpp_type_name(t));
  // The end, high + 1, as an unsigned distance from `from` (2^63 - from for int64).
  const std::uint64_t end = t == ScalarType::kInt64 ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(high) + 1;
  return fill_integers(self, from, end - static_cast<std::uint64_t>(from));
}

Tensor random_to_kernel(const Tensor& self, I64 to) { return random_from_to(self, 0, to); }

// random_(): [0, the dtype's largest integer + 1), or [0, 2^digits + 1) for floating dtypes.
Tensor random_kernel(const Tensor& self) {
  const ScalarType t = self.dtype();
  WICK_CHECK(!is_complex(t), RuntimeError, "\"random_kernel_cpu\" not implemented for '", type_title(t), "'");
  return random_from_kernel(self, 0, std::nullopt);
}

// --- the *_like creators, randperm, bernoulli, normal --------------------------------------------

Tensor rand_like_kernel(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType t = dtype.value_or(self.dtype());
  WICK_CHECK(is_floating(t), RuntimeError, "\"check_uniform_bounds\" not implemented for '", type_title(t), "'");
  return rand(self.sizes(), t, device.value_or(self.device()));
}
Tensor randn_like_kernel(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType t = dtype.value_or(self.dtype());
  WICK_CHECK(is_floating(t), RuntimeError, "\"normal_kernel_cpu\" not implemented for '", type_title(t), "'");
  return randn(self.sizes(), t, device.value_or(self.device()));
}

// randint_like(self, low, high): random_(low, high) of a new tensor like self.
Tensor randint_like_low_kernel(const Tensor& self, I64 low, I64 high, std::optional<ScalarType> dtype,
                               std::optional<Device> device) {
  Tensor out = empty(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
  return random_from_to(out, low, high);
}
Tensor randint_like_kernel(const Tensor& self, I64 high, std::optional<ScalarType> dtype,
                           std::optional<Device> device) {
  return randint_like_low_kernel(self, 0, high, dtype, device);
}

// randperm: PyTorch 1.13's CPU shuffle on the default generator, then moved
// to the device (Note [PyTorch's random numbers] in core/random.cpp).
Tensor randperm_kernel(std::int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const char* op = "torch.randperm";
  const ScalarType t = dtype.value_or(ScalarType::kInt64);
  WICK_CHECK(n >= 0, RuntimeError, op, ": Trying to create tensor with negative dimension ", n, ": [", n, "]");
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, op, ": \"randperm\" not implemented for 'Bool'");
  WICK_CHECK(t != ScalarType::kFloat32 || n <= (std::int64_t{1} << 24) + 1, RuntimeError, op,
             ": n cannot be greater than 2^24+1 for Float type.");
  WICK_CHECK(t != ScalarType::kFloat64 || n <= (std::int64_t{1} << 53) + 1, RuntimeError, op,
             ": n cannot be greater than 2^53+1 for Double type.");
  const Device d = device.value_or(kCpu);
  if (d.is_meta()) return empty({n}, t, d);
  Tensor r = empty({n}, ScalarType::kInt64, kCpu);
  default_generator().permutation(r.data_ptr<std::int64_t>(), n);
  return r.to(d, t);
}

// bernoulli(p): a uniform of p's own dtype per element, below p (PyTorch's
// CPU kernel draws float32 uniforms for float32 probabilities).
Tensor bernoulli_kernel(const Tensor& input) {
  const char* op = "torch.bernoulli";
  WICK_CHECK(is_floating(input.dtype()), RuntimeError, op, ": \"bernoulli_tensor_cpu_p_\" not implemented for '",
             type_title(input.dtype()), "'");
  if (!input.device().is_meta()) {
    const bool in_range =
        all(logical_and(ge(input, wrap_scalar(Scalar(0.0))), le(input, wrap_scalar(Scalar(1.0))))).item().to<bool>();
    WICK_CHECK(in_range, RuntimeError, op,
               ": Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
               "If so, please report an enhancement request to PyTorch.)");
  }
  return lt(rand(input.sizes(), input.dtype(), input.device()), input).to(input.dtype());
}

// bernoulli(input, p): one float64 uniform per element, below p.
Tensor bernoulli_p_kernel(const Tensor& input, double p) {
  WICK_CHECK(p >= 0.0 && p <= 1.0, RuntimeError,
             "torch.bernoulli: bernoulli_ expects p to be in [0, 1], but got p=", p);
  return lt(rand(input.sizes(), ScalarType::kFloat64, input.device()), wrap_scalar(Scalar(p))).to(input.dtype());
}

Tensor bernoulli_inplace_kernel(const Tensor& self, double p) {
  autograd::check_inplace(self, "bernoulli_");
  const Tensor draw = bernoulli_p_kernel(self, p);
  Tensor out = self;
  return out.copy_(draw);
}

// torch.normal with a tensor mean or std: standard normal values z in the
// broadcast shape, then z * std + mean (two roundings, as PyTorch). As in
// PyTorch, the result depends on a mean or std that requires grad with a
// zero gradient: `where` with an all-true mask passes the values on and
// gives the other branch zeros, without touching the values (inf and NaN
// included).
Tensor normal_of(const Tensor& mean, const Tensor& std, IntArrayRef shape, ScalarType dtype, Device device) {
  const Tensor z = normal_inplace_kernel(empty(shape, dtype, device), 0.0, 1.0);
  Tensor value = add(mul(z, std.detach()), mean.detach());
  for (const Tensor* input : {&mean, &std}) {
    if (input->requires_grad()) value = where(ones(value.sizes(), ScalarType::kBool, value.device()), value, *input);
  }
  return value;
}

void check_std_tensor(const Tensor& std) {
  if (std.device().is_meta()) return;
  WICK_CHECK(all(ge(std, wrap_scalar(Scalar(0.0)))).item().to<bool>(), RuntimeError,
             "normal expects all elements of std >= 0.0");
}

Tensor normal_tensor_float_kernel(const Tensor& mean, double std) {
  WICK_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
  check_dtype(mean, is_floating(mean.dtype()), "normal_kernel_cpu");
  return normal_of(mean, wrap_scalar(Scalar(std)), mean.sizes(), mean.dtype(), mean.device());
}

Tensor normal_float_tensor_kernel(double mean, const Tensor& std) {
  check_dtype(std, is_floating(std.dtype()), "normal_kernel_cpu");
  check_std_tensor(std);
  return normal_of(wrap_scalar(Scalar(mean)), std, std.sizes(), std.dtype(), std.device());
}

Tensor normal_tensor_tensor_kernel(const Tensor& mean, const Tensor& std) {
  const DimVector shape = broadcast_shapes(mean.sizes(), std.sizes(), "normal");
  const ScalarType t = promote_types(mean.dtype(), std.dtype());
  WICK_CHECK(is_floating(t), RuntimeError, "\"normal_kernel_cpu\" not implemented for '", type_title(t), "'");
  check_std_tensor(std);
  return normal_of(mean, std, shape, t, mean.device());
}

Tensor normal_float_float_kernel(double mean, double std, IntArrayRef size, std::optional<ScalarType> dtype,
                                 std::optional<Device> device) {
  WICK_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
  return normal_inplace_kernel(empty(size, dtype.value_or(kDefaultFloat), device.value_or(kCpu)), mean, std);
}


// torch.multinomial, sampled as PyTorch 1.13's CPU kernel samples.
// Without replacement (or for one sample): the indices of the k largest of
// p / E, E exponential(1) drawn by exponential_ (the Gumbel-max trick in
// exponential form). With replacement: each row's running sum in the
// input's dtype, normalised by the total, its last entry set to 1, and for
// each sample a uniform double located in it by binary search; a row is
// checked as it is sampled, so the rows before a bad one draw first.
template <typename S>
void sample_with_replacement(const Tensor& p, I64 n_sample, I64* out) {
  const I64 rows = p.dim() == 1 ? 1 : p.sizes()[0];
  const I64 categories = p.sizes().back();
  const S* probs = p.data_ptr<S>();
  std::vector<S> cumulative(static_cast<std::size_t>(categories));
  for (I64 r = 0; r < rows; ++r) {
    S total = S(0);
    for (I64 j = 0; j < categories; ++j) {
      const S value = probs[static_cast<std::size_t>(r * categories + j)];
      WICK_CHECK(static_cast<double>(value) >= 0, RuntimeError,
                 "torch.multinomial: invalid multinomial distribution (encountering probability entry < 0)");
      WICK_CHECK(std::isfinite(static_cast<double>(value)), RuntimeError,
                 "torch.multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      total = static_cast<S>(total + value);
      cumulative[static_cast<std::size_t>(j)] = total;
    }
    WICK_CHECK(static_cast<double>(total) > 0, RuntimeError,
               "torch.multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    for (S& c : cumulative) c = static_cast<S>(c / total);
    cumulative.back() = S(1);
    for (I64 k = 0; k < n_sample; ++k) {
      double u = 0;
      default_generator().uniform(&u, 1, 0.0, 1.0);
      std::size_t left = 0;
      std::size_t right = cumulative.size();
      while (right > left) {
        const std::size_t mid = left + (right - left) / 2;
        if (static_cast<double>(cumulative[mid]) < u) {
          left = mid + 1;
        } else {
          right = mid;
        }
      }
      out[static_cast<std::size_t>(r * n_sample + k)] = static_cast<I64>(left);
    }
  }
}

Tensor multinomial_kernel(const Tensor& input, I64 n_sample, bool replacement) {
  const char* op = "torch.multinomial";
  WICK_CHECK(input.dim() > 0 && input.dim() <= 2, RuntimeError, op, ": prob_dist must be 1 or 2 dim");
  WICK_CHECK(is_floating(input.dtype()), RuntimeError, op,
             ": multinomial only supports floating-point dtypes for input, got: ", type_title(input.dtype()));
  WICK_CHECK(n_sample > 0, RuntimeError, op, ": cannot sample n_sample <= 0 samples");
  const I64 categories = input.sizes().back();
  WICK_CHECK(replacement || n_sample <= categories, RuntimeError, op,
             ": cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  WICK_CHECK(categories <= (I64{1} << 24), RuntimeError, op, ": number of categories cannot exceed 2^24");
  DimVector shape;
  if (input.dim() == 2) shape.push_back(input.sizes()[0]);
  shape.push_back(n_sample);
  if (input.device().is_meta()) return empty(IntArrayRef(shape), ScalarType::kInt64, input.device());
  const Tensor p = input.detach();
  if (!replacement || n_sample == 1) {
    const bool valid = all(logical_and(isfinite(p), ge(p, Scalar(0)))).item<bool>();
    WICK_CHECK(valid, RuntimeError, op, ": probability tensor contains either `inf`, `nan` or element < 0");
    const I64 last[] = {-1};
    WICK_CHECK(!any(eq(sum(p, IntArrayRef(last, 1)), Scalar(0))).item<bool>(), RuntimeError, op,
               ": invalid multinomial distribution (sum of probabilities <= 0)");
    Tensor noise = empty(p.sizes(), p.dtype(), p.device());
    noise.exponential_();
    const Tensor keys = div(p, noise);
    if (n_sample == 1) return argmax(keys, -1, true);
    return std::get<1>(topk(keys, n_sample));
  }
  WICK_CHECK(input.dtype() != ScalarType::kFloat16, RuntimeError, op, ": multinomial is not implemented for half on CPU");
  const Tensor host = p.contiguous().to(kCpu);
  Tensor result = empty(IntArrayRef(shape), ScalarType::kInt64, kCpu);
  visit_dtype<dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64) |
              dtypes::bit(ScalarType::kBFloat16)>(host.dtype(), "multinomial", [&](auto tag) {
    sample_with_replacement<decltype(tag)>(host, n_sample, result.data_ptr<I64>());
  });
  return result.to(input.device());
}

// A double converted to int64 as x86's cvttsd2si converts it, which is what
// PyTorch's sampler gets: out of range (a rate of 1e30 or inf) or NaN give
// INT64_MIN (-9.2234e+18 as a float), where C++ leaves the result undefined.
I64 int64_as_x86(double v) {
  constexpr double kBound = 9223372036854775808.0;  // 2^63
  if (!(v >= -kBound && v < kBound)) return std::numeric_limits<I64>::min();
  return static_cast<I64>(v);
}

// One Poisson(lambda) draw as PyTorch 1.13's CPU sampler makes it: for
// lambda >= 10 Hoermann's transformed rejection (PTRS, numpy's constants),
// below it the product of uniforms until it falls under exp(-lambda); 0
// for lambda 0. Every uniform is a 53-bit double from the default generator.
double poisson_draw(double lambda) {
  const auto uniform = [] {
    double u = 0;
    default_generator().uniform(&u, 1, 0.0, 1.0);
    return u;
  };
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda);
    const double loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const double u = uniform() - 0.5;
      const double v = uniform();
      const double us = 0.5 - std::fabs(u);
      const I64 k = int64_as_x86(std::floor((2 * a / us + b) * u + lambda + 0.43));
      if (us >= 0.07 && v <= vr) return static_cast<double>(k);
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -lambda + static_cast<double>(k) * loglam - std::lgamma(static_cast<double>(k) + 1))
        return static_cast<double>(k);
    }
  }
  if (lambda == 0) return 0;
  const double limit = std::exp(-lambda);
  I64 count = 0;
  double product = 1.0;
  for (;;) {
    product *= uniform();
    if (product <= limit) return static_cast<double>(count);
    ++count;
  }
}

// torch.poisson: one draw per rate, in row-major order; its gradient is zero
// (PyTorch's), through a `where` with an all-true mask.
Tensor poisson_kernel(const Tensor& input) {
  const char* op = "torch.poisson";
  const ScalarType t = input.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kBFloat16, RuntimeError, op,
             ": \"poisson_cpu\" not implemented for '", type_title(t), "'");
  if (input.device().is_meta()) return empty(input.sizes(), t, input.device());
  const Tensor rates = input.detach().contiguous().to(kCpu).to(ScalarType::kFloat64);
  Tensor draws = empty(rates.sizes(), ScalarType::kFloat64, kCpu);
  const double* lambda = rates.data_ptr<double>();
  double* out = draws.data_ptr<double>();
  for (I64 i = 0; i < rates.numel(); ++i) {
    WICK_CHECK(lambda[i] >= 0, RuntimeError, op, ": invalid Poisson rate, expected rate to be non-negative");
    out[i] = poisson_draw(lambda[i]);
  }
  Tensor value = draws.to(t).to(input.device());
  if (input.requires_grad()) value = where(ones(value.sizes(), ScalarType::kBool, value.device()), value, input);
  return value;
}

}  // namespace

void register_random_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("rand_like", &rand_like_kernel)
      .impl("randn_like", &randn_like_kernel)
      .impl("randint_like", &randint_like_kernel)
      .impl("randint_like.low_dtype", &randint_like_low_kernel)
      .impl("randperm", &randperm_kernel)
      .impl("bernoulli", &bernoulli_kernel)
      .impl("bernoulli.p", &bernoulli_p_kernel)
      .impl("normal.Tensor_float", &normal_tensor_float_kernel)
      .impl("normal.float_Tensor", &normal_float_tensor_kernel)
      .impl("normal", &normal_tensor_tensor_kernel)
      .impl("normal.float_float", &normal_float_float_kernel)
      .impl("multinomial", &multinomial_kernel)
      .impl("poisson", &poisson_kernel);
  auto tensor = std::make_unique<Library>("torch.Tensor", kComposite);
  tensor->impl("bernoulli_", &bernoulli_inplace_kernel)
      .impl("uniform_", &uniform_kernel)
      .impl("normal_", &normal_inplace_kernel)
      .impl("random_", &random_kernel)
      .impl("random_.to", &random_to_kernel)
      .impl("random_.from", &random_from_kernel)
      .impl("exponential_", &exponential_kernel)
      .impl("geometric_", &geometric_kernel)
      .impl("cauchy_", &cauchy_kernel)
      .impl("log_normal_", &log_normal_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(tensor));
}

}  // namespace wick
