// dispatch/composite/interpolate_ops.cpp - F.interpolate and F.upsample*, one spatial dim at a time.
/// \file
/// Note [Interpolation one dim at a time]
/// Every mode of F.interpolate but `area` is separable: each output element
/// is a weighted sum over a box of input elements whose weight is the
/// product of one weight per spatial dim. So the result is computed one
/// spatial dim at a time, the last first: each pass is one call of
/// aten.interpolate_taps, which sums each output row's taps (input rows)
/// times their weights; its gradient, aten.interpolate_taps_backward, adds
/// each gradient row times its weights back to those input rows (both
/// operators have formulas, so double backward works). PyTorch's CPU kernels nest the sums the same way
/// (the last dim innermost), so the roundings agree. The tap positions and
/// weights follow PyTorch 1.13's (ATen's UpSample.h), computed on the host
/// in the input's arithmetic type (float for float32, float16 and
/// bfloat16, double for float64):
/// - linear: source x = (i + 0.5) / scale - 0.5, clamped at 0, or
///   i (in - 1) / (out - 1) with align_corners; taps floor(x) and the next
///   one (the same at the edge), weights 1 - t and t;
/// - cubic: the same source position unclamped, four taps from floor(x) - 1
///   clamped to the input, Keys' kernel with A = -0.75;
/// - nearest: floor(i * in / out) (floor((i + 0.5) * in / out) for
///   nearest-exact), with PyTorch's float arithmetic and its shortcuts for
///   equal and doubled sizes.
/// `area` is adaptive average pooling. A scale_factor given without
/// recompute_scale_factor sets the positions' scale (1 / scale_factor),
/// not only the output size, as in PyTorch.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"
#include "wick/value.h"

namespace wick {
namespace {

using T = const Tensor&;

constexpr const char* kOp = "torch.nn.functional.interpolate";

// One spatial dim's taps: out[i] = sum over k of in[index[k][i]] * weight[k][i].
struct Taps {
  std::vector<std::vector<std::int64_t>> index;
  std::vector<std::vector<double>> weight;  // empty for nearest (one tap of weight 1)
};

// PyTorch's scale of positions: align_corners maps the corners onto each
// other; otherwise 1 / scale_factor when one was given, else in / out.
template <typename Acc>
Acc position_scale(std::int64_t in, std::int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<Acc>(in - 1) / static_cast<Acc>(out - 1) : Acc(0);
  if (scale && *scale > 0) return static_cast<Acc>(1.0 / *scale);
  return static_cast<Acc>(in) / static_cast<Acc>(out);
}

template <typename Acc>
Acc source_position(Acc scale, std::int64_t i, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<Acc>(i);
  const Acc x = scale * (static_cast<Acc>(i) + Acc(0.5)) - Acc(0.5);
  return (!cubic && x < 0) ? Acc(0) : x;
}

template <typename Acc>
Taps linear_taps(std::int64_t in, std::int64_t out, bool align_corners, std::optional<double> scale) {
  const Acc s = position_scale<Acc>(in, out, align_corners, scale);
  Taps taps{{{}, {}}, {{}, {}}};
  for (std::int64_t i = 0; i < out; ++i) {
    const Acc x = source_position<Acc>(s, i, align_corners, false);
    const auto lo = static_cast<std::int64_t>(x);
    const std::int64_t step = lo < in - 1 ? 1 : 0;
    const Acc t = x - static_cast<Acc>(lo);
    taps.index[0].push_back(lo);
    taps.index[1].push_back(lo + step);
    taps.weight[0].push_back(static_cast<double>(Acc(1) - t));
    taps.weight[1].push_back(static_cast<double>(t));
  }
  return taps;
}

// Keys' cubic convolution kernel, A = -0.75: for |x| <= 1 and 1 < |x| < 2.
template <typename Acc>
Acc cubic_near(Acc x) {
  constexpr Acc kA = Acc(-0.75);
  return ((kA + 2) * x - (kA + 3)) * x * x + 1;
}
template <typename Acc>
Acc cubic_far(Acc x) {
  constexpr Acc kA = Acc(-0.75);
  return ((kA * x - 5 * kA) * x + 8 * kA) * x - 4 * kA;
}

template <typename Acc>
Taps cubic_taps(std::int64_t in, std::int64_t out, bool align_corners, std::optional<double> scale) {
  const Acc s = position_scale<Acc>(in, out, align_corners, scale);
  Taps taps{std::vector<std::vector<std::int64_t>>(4), std::vector<std::vector<double>>(4)};
  for (std::int64_t i = 0; i < out; ++i) {
    const Acc x = source_position<Acc>(s, i, align_corners, true);
    const Acc fl = std::floor(x);
    const Acc t = x - fl;
    const Acc w[4] = {cubic_far<Acc>(t + 1), cubic_near<Acc>(t), cubic_near<Acc>(1 - t), cubic_far<Acc>(2 - t)};
    const auto base = static_cast<std::int64_t>(fl) - 1;
    for (std::int64_t k = 0; k < 4; ++k) {
      taps.index[k].push_back(std::clamp<std::int64_t>(base + k, 0, in - 1));
      taps.weight[k].push_back(static_cast<double>(w[k]));
    }
  }
  return taps;
}

Taps nearest_taps(std::int64_t in, std::int64_t out, std::optional<double> scale, bool exact) {
  Taps taps{{{}}, {}};
  // PyTorch computes these in float whatever the input's dtype.
  const float s = (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
  for (std::int64_t i = 0; i < out; ++i) {
    std::int64_t src = 0;
    if (exact) {
      src = std::min(static_cast<std::int64_t>(std::floor((static_cast<float>(i) + 0.5f) * s)), in - 1);
    } else if (out == in) {
      src = i;
    } else if (out == 2 * in) {
      src = i >> 1;
    } else {
      src = std::min(static_cast<std::int64_t>(std::floor(static_cast<float>(i) * s)), in - 1);
    }
    taps.index[0].push_back(src);
  }
  return taps;
}

// One pass along `dim`: aten.interpolate_taps sums the taps' rows with their
// weights in one pass over the output.
Tensor apply_taps(T x, std::int64_t dim, const Taps& taps) {
  const auto count = static_cast<std::int64_t>(taps.index.size());
  const auto positions = static_cast<std::int64_t>(taps.index[0].size());
  std::vector<std::int64_t> index;
  index.reserve(static_cast<std::size_t>(count * positions));
  for (const auto& k : taps.index) index.insert(index.end(), k.begin(), k.end());
  const Tensor idx = tensor(Value(index), ScalarType::kInt64, x.device()).reshape({count, positions});
  if (taps.weight.empty()) return aten::interpolate_taps(x, dim, idx, std::nullopt);
  std::vector<double> weight;
  weight.reserve(index.size());
  for (const auto& k : taps.weight) weight.insert(weight.end(), k.begin(), k.end());
  const Tensor w = tensor(Value(weight), ScalarType::kFloat64, x.device()).to(x.dtype()).reshape({count, positions});
  return aten::interpolate_taps(x, dim, idx, w);
}

// The spatial sizes and per-dim scales F.interpolate resolves from its arguments.
struct Resolved {
  DimVector size;
  std::vector<std::optional<double>> scales;
};

// A list or tuple of numbers as Python prints it: [3, 4], (3,), (1.5, 2.0).
std::string sequence_text(const Value& v, const std::vector<double>& numbers) {
  const bool tuple = v.is_tuple();
  std::string s = tuple ? "(" : "[";
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const double x = numbers[i];
    const bool is_int = v.is_int_list() || (!v.is_double_list() && v.items()[i].is_int());
    std::string text;
    if (is_int) {
      // From the argument itself: an int near 2^63 does not survive a trip
      // through double (and converting it back would be undefined behaviour).
      text = std::to_string(v.is_int_list() ? v.to_int_list()[i] : v.items()[i].to_int());
    } else {
      char buf[64];
      const auto r = std::to_chars(buf, buf + sizeof buf, x);
      text.assign(buf, r.ptr);
      if (text.find_first_of(".en") == std::string::npos) text += ".0";
    }
    s += (i > 0 ? ", " : "") + text;
  }
  if (tuple && numbers.size() == 1) s += ",";
  return s + (tuple ? ")" : "]");
}

std::string spatial_text(T input) {
  std::string s = "[";
  for (std::int64_t d = 2; d < input.dim(); ++d) s += (d > 2 ? ", " : "") + std::to_string(input.sizes()[d]);
  return s + "]";
}

// The ints of a list or tuple argument (nullopt when it is not one of ints).
std::optional<DimVector> ints_of(const Value& v) {
  if (v.is_int_list()) return DimVector(IntArrayRef(v.to_int_list()));
  if (!v.is_list() && !v.is_tuple()) return std::nullopt;
  DimVector out;
  for (const Value& x : v.items()) {
    if (!x.is_int()) return std::nullopt;
    out.push_back(x.to_int());
  }
  return out;
}

// The numbers of a list or tuple argument (nullopt when it is not one of numbers).
std::optional<std::vector<double>> numbers_of(const Value& v) {
  if (v.is_double_list()) return v.to_double_list();
  if (v.is_int_list()) {
    std::vector<double> out;
    for (std::int64_t x : v.to_int_list()) out.push_back(static_cast<double>(x));
    return out;
  }
  if (!v.is_list() && !v.is_tuple()) return std::nullopt;
  std::vector<double> out;
  for (const Value& x : v.items()) {
    if (!x.is_int() && !x.is_double()) return std::nullopt;
    out.push_back(x.to_double());
  }
  return out;
}

Resolved resolve(T input, const Value& size, const Value& scale_factor, std::string_view mode,
                 std::optional<bool> recompute) {
  const std::int64_t dims = input.dim() - 2;
  WICK_CHECK(size.is_none() || scale_factor.is_none(), ValueError, kOp, ": only one of size or scale_factor should be defined");
  WICK_CHECK(!size.is_none() || !scale_factor.is_none(), ValueError, kOp, ": either size or scale_factor should be defined");
  Resolved r;
  r.scales.assign(static_cast<std::size_t>(std::max<std::int64_t>(dims, 0)), std::nullopt);
  if (!size.is_none()) {
    WICK_CHECK(!recompute.value_or(false), ValueError, kOp, ": recompute_scale_factor is not meaningful with an explicit size.");
    if (size.is_int()) {
      r.size.assign(DimVector(static_cast<std::size_t>(std::max<std::int64_t>(dims, 0)), size.to_int()));
    } else {
      const std::optional<DimVector> v = ints_of(size);
      WICK_CHECK(v.has_value(), TypeError, kOp, ": argument 'size' must be an int or a tuple of ints");
      WICK_CHECK(static_cast<std::int64_t>(v->size()) == dims, ValueError, kOp,
                 ": Input and output must have the same number of spatial dimensions, but got input with spatial "
                 "dimensions of ",
                 spatial_text(input), " and output size of ",
                 sequence_text(size, std::vector<double>(v->begin(), v->end())),
                 ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                 "format.");
      r.size = *v;
    }
    return r;
  }
  std::vector<double> factors;
  if (scale_factor.is_number()) {
    factors.assign(static_cast<std::size_t>(std::max<std::int64_t>(dims, 0)), scale_factor.to_double());
  } else if (const std::optional<std::vector<double>> v = numbers_of(scale_factor)) {
    factors = *v;
    WICK_CHECK(static_cast<std::int64_t>(factors.size()) == dims, ValueError, kOp,
               ": Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
               "dimensions of ",
               spatial_text(input), " and scale_factor of shape ", sequence_text(scale_factor, factors),
               ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
               "format.");
  } else {
    WICK_CHECK(false, TypeError, kOp, ": argument 'scale_factor' must be a float or a tuple of floats");
  }
  // The output size is floor(in * factor), in double; the factor also sets
  // the positions' scale unless the scale is recomputed (area always is).
  const bool recomputed = recompute.value_or(false) || mode == "area";
  for (std::size_t d = 0; d < factors.size(); ++d) {
    const double f = factors[d];
    const double out = std::floor(static_cast<double>(input.sizes()[d + 2]) * f);
    WICK_CHECK(std::isfinite(out) && out < 9.2e18 && out > -9.2e18, RuntimeError, kOp,
               ": the output size of a scale_factor of ", f, " does not fit in int64");
    r.size.push_back(static_cast<std::int64_t>(out));
    if (!recomputed) r.scales[d] = f;
  }
  return r;
}

// The name of PyTorch 1.13's CPU kernel that refuses a dtype for `mode`.
const char* kernel_name(std::string_view mode, std::int64_t dims) {
  if (mode == "nearest" || mode == "nearest-exact") return "compute_indices_weights_nearest";
  if (mode == "bicubic") return "compute_indices_weights_cubic";
  if (mode == "trilinear") return "upsample_trilinear3d_channels_last";
  if (mode == "area") return dims == 3 ? "adaptive_avg_pool3d" : "adaptive_avg_pool2d";
  return "compute_indices_weights_linear";
}

Tensor area(T input, IntArrayRef size) {
  const std::int64_t dims = input.dim() - 2;
  if (dims == 1) return adaptive_avg_pool1d(input, size);
  if (dims == 2) return nn::functional::adaptive_avg_pool2d(input, size);
  // 5-D: the box average is the average over (H, W), then over D.
  const IntArrayRef s = input.sizes();
  const std::int64_t hw[] = {size[1], size[2]};
  const std::int64_t n = s[0];
  const std::int64_t c = s[1];
  const std::int64_t flat[] = {n, checked_mul(c, s[2], kOp), s[3], s[4]};
  Tensor y = nn::functional::adaptive_avg_pool2d(input.reshape(IntArrayRef(flat, 4)), IntArrayRef(hw, 2));
  const std::int64_t planes = checked_mul(size[1], size[2], kOp);
  const std::int64_t by_depth[] = {n, c, s[2], planes};
  y = y.reshape(IntArrayRef(by_depth, 4)).transpose(2, 3);  // (N, C, H'W', D)
  const std::int64_t rows[] = {n, checked_mul(c, planes, kOp), s[2]};
  y = adaptive_avg_pool1d(y.reshape(IntArrayRef(rows, 3)), IntArrayRef(size[0]));
  const std::int64_t back[] = {n, c, planes, size[0]};
  const std::int64_t out[] = {n, c, size[0], size[1], size[2]};
  return y.reshape(IntArrayRef(back, 4)).transpose(2, 3).reshape(IntArrayRef(out, 5));
}

Tensor interpolate_kernel(T input, const Value& size, const Value& scale_factor, std::string_view mode,
                          std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor,
                          bool antialias) {
  const bool interpolating = mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  if (!interpolating) {
    WICK_CHECK(!align_corners.has_value(), ValueError, kOp,
               ": align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
               "trilinear");
  }
  const std::int64_t dims = input.dim() - 2;
  const bool known = interpolating || mode == "nearest" || mode == "area" || mode == "nearest-exact";
  const Resolved r = resolve(input, size, scale_factor, mode, recompute_scale_factor);
  WICK_CHECK(!antialias, NotImplementedError, kOp,
             ": antialias=True is not supported by wick yet (PyTorch has it for bilinear and bicubic 4-D input)");
  // PyTorch's dispatch on the input's rank and the mode.
  const bool fits = known && dims >= 1 && dims <= 3 &&
                    ((mode != "linear" || dims == 1) && (mode != "bilinear" || dims == 2) &&
                     (mode != "bicubic" || dims == 2) && (mode != "trilinear" || dims == 3));
  if (!fits) {
    const char* need = mode == "linear" ? "3D" : (mode == "bilinear" || mode == "bicubic") ? "4D" : "5D";
    WICK_CHECK(!known || dims < 1 || dims > 3, NotImplementedError, kOp, ": Got ", input.dim(), "D input, but ", mode,
               " mode needs ", need, " input");
    WICK_CHECK(false, NotImplementedError, kOp, ": Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
               input.dim(),
               "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got ", mode,
               ")");
  }
  const ScalarType t = input.dtype();
  const bool nearest = mode == "nearest" || mode == "nearest-exact";
  WICK_CHECK(is_floating(t) || (nearest && t == ScalarType::kUInt8), RuntimeError, kOp, ": \"",
             kernel_name(mode, dims), "\" not implemented for '", type_title(t), "'");
  if (mode == "area") return area(input, r.size);
  bool positive = true;
  std::string in_text;
  std::string out_text;
  const char* const labels[] = {"D", "H", "W"};
  for (std::int64_t d = 0; d < dims; ++d) {
    positive = positive && input.sizes()[d + 2] > 0 && r.size[d] > 0;
    const char* label = labels[3 - dims + d];
    in_text += std::string(d > 0 ? ", " : "") + label + ": " + std::to_string(input.sizes()[d + 2]);
    out_text += std::string(d > 0 ? ", " : "") + label + ": " + std::to_string(r.size[d]);
  }
  WICK_CHECK(positive, RuntimeError, kOp, ": Input and output sizes should be greater than 0, but got input (", in_text,
             ") output (", out_text, ")");
  // The output's storage before any tap: its size from every output size,
  // an empty batch counting as one, as PyTorch sizes it (and refuses it);
  // then the output's worth of memory, once, so that an output no memory
  // can hold fails with the allocator's error instead of after building
  // `out` taps per dimension for it.
  DimVector out_shape(input.sizes());
  for (std::int64_t d = 0; d < dims; ++d) out_shape[static_cast<std::size_t>(d + 2)] = r.size[d];
  DimVector storage_shape(out_shape);
  for (std::int64_t& n : storage_shape) n = std::max<std::int64_t>(n, 1);
  const std::optional<std::int64_t> elements = try_numel(IntArrayRef(storage_shape));
  WICK_CHECK(elements && *elements <= std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(itemsize(t)),
             RuntimeError, kOp, ": Storage size calculation overflowed with sizes=", format_shape(IntArrayRef(out_shape)));
  (void)empty(IntArrayRef(out_shape), t, input.device());
  const bool corners = align_corners.value_or(false);
  const bool wide = t == ScalarType::kFloat64;
  Tensor x = input;
  for (std::int64_t d = dims - 1; d >= 0; --d) {
    const std::int64_t in = input.sizes()[d + 2];
    const std::int64_t out = r.size[d];
    const std::optional<double> scale = r.scales[d];
    Taps taps;
    if (nearest) {
      taps = nearest_taps(in, out, scale, mode == "nearest-exact");
    } else if (mode == "bicubic") {
      taps = wide ? cubic_taps<double>(in, out, corners, scale) : cubic_taps<float>(in, out, corners, scale);
    } else {
      taps = wide ? linear_taps<double>(in, out, corners, scale) : linear_taps<float>(in, out, corners, scale);
    }
    x = apply_taps(x, d + 2, taps);
  }
  return x;
}

// The deprecated spellings: interpolate with PyTorch's defaults for each.
Tensor upsample_kernel(T input, const Value& size, const Value& scale_factor, std::string_view mode,
                       std::optional<bool> align_corners) {
  return interpolate_kernel(input, size, scale_factor, mode, align_corners, std::nullopt, false);
}
Tensor upsample_nearest_kernel(T input, const Value& size, const Value& scale_factor) {
  return interpolate_kernel(input, size, scale_factor, "nearest", std::nullopt, std::nullopt, false);
}
Tensor upsample_bilinear_kernel(T input, const Value& size, const Value& scale_factor) {
  return interpolate_kernel(input, size, scale_factor, "bilinear", true, std::nullopt, false);
}

}  // namespace

void register_interpolate_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kCompositeImplicit);
  functional->impl("interpolate", &interpolate_kernel)
      .impl("upsample", &upsample_kernel)
      .impl("upsample_nearest", &upsample_nearest_kernel)
      .impl("upsample_bilinear", &upsample_bilinear_kernel);
  out.push_back(std::move(functional));
}

}  // namespace wick
