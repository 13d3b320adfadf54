// dispatch/composite/grid_ops.cpp - sliding blocks and sampling grids: F.unfold/fold, F.affine_grid and F.grid_sample.
/// \file
/// unfold (im2col) gathers each block's kh * kw taps with one index_select
/// per spatial dim of the zero-padded input; fold (col2im) is its adjoint,
/// two index_adds into the padded output, cropped. affine_grid maps a base
/// grid of normalised coordinates in [-1, 1] through each batch's affine
/// matrix (one bmm). grid_sample reads the input at the grid's points
/// (Note [Sampling a grid]). All are compositions of operators with their
/// own gradients, so they run on every backend and differentiate, in the
/// grid too.
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;
using Ints = DimVector;

// kernel_size, dilation, padding and stride of a 2-D block, checked as
// PyTorch's im2col and col2im check them.
struct Blocks {
  I64 kh, kw, dh, dw, ph, pw, sh, sw;
};

Blocks blocks_of(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  auto two = [](const char* name, IntArrayRef v) {
    WICK_CHECK(v.size() == 2, RuntimeError, "It is expected ", name, " equals to 2, but got size ", v.size());
  };
  two("kernel_size", kernel_size);
  two("dilation", dilation);
  two("padding", padding);
  two("stride", stride);
  const Blocks b{kernel_size[0], kernel_size[1], dilation[0], dilation[1], padding[0], padding[1], stride[0], stride[1]};
  WICK_CHECK(b.kh > 0 && b.kw > 0, RuntimeError, "kernel size should be greater than zero, but got kernel_height: ",
             b.kh, " kernel_width: ", b.kw);
  WICK_CHECK(b.dh > 0 && b.dw > 0, RuntimeError, "dilation should be greater than zero, but got dilation_height: ",
             b.dh, " dilation_width: ", b.dw);
  WICK_CHECK(b.ph >= 0 && b.pw >= 0, RuntimeError, "padding should be non-negative, but got pad_height: ", b.ph,
             " pad_width: ", b.pw);
  WICK_CHECK(b.sh > 0 && b.sw > 0, RuntimeError, "stride should be greater than zero, but got stride_height: ", b.sh,
             " stride_width: ", b.sw);
  return b;
}

// The number of blocks along a dim of `size` (C's truncating division, as PyTorch's im2col).
I64 block_count(I64 size, I64 k, I64 d, I64 p, I64 s) {
  const char* op = "unfold";
  const I64 span = checked_sub(checked_add(size, checked_mul(p, 2, op), op),
                               checked_add(checked_mul(d, k - 1, op), 1, op), op);
  return span / s + 1;
}

// Positions o * s + j * d (o < out, j < k) in the padded input, o major.
Tensor tap_positions(I64 out, I64 k, I64 s, I64 d, const Device& device) {
  std::vector<I64> pos;
  for (I64 o = 0; o < out; ++o)
    for (I64 j = 0; j < k; ++j) pos.push_back(o * s + j * d);
  return tensor(Value(pos), ScalarType::kInt64, device);
}

constexpr std::uint32_t kBlockDtypes =
    dtypes::kFloatingAndComplex;  // im2col/col2im: the floating dtypes (16-bit ones too) and complex

void check_block_dtype(const char* kernel, ScalarType t) {
  if ((kBlockDtypes & dtypes::bit(t)) == 0) throw_not_implemented_for(kernel, t);
}

Tensor unfold_kernel(T input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  const Blocks b = blocks_of(kernel_size, dilation, padding, stride);
  // PyTorch reads the spatial sizes as dims 2 and 3 of the batched shape.
  WICK_CHECK(input.dim() >= 3, IndexError, "Dimension out of range (expected to be in range of [", -input.dim(), ", ",
             input.dim() - 1, "], but got 2)");
  bool nonempty = input.dim() == 3 || input.dim() == 4;
  for (I64 d = input.dim() == 4 ? 1 : 0; nonempty && d < input.dim(); ++d) nonempty = input.sizes()[static_cast<std::size_t>(d)] != 0;
  WICK_CHECK(nonempty, RuntimeError,
             "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
             "input, but got: ",
             format_shape(input.sizes()));
  const bool batched = input.dim() == 4;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const I64 h = x.sizes()[2];
  const I64 w = x.sizes()[3];
  const I64 oh = block_count(h, b.kh, b.dh, b.ph, b.sh);
  const I64 ow = block_count(w, b.kw, b.dw, b.pw, b.sw);
  WICK_CHECK(oh >= 1 && ow >= 1, RuntimeError, "Given input with spatial size (", h, ", ", w, "), kernel_size=(", b.kh,
             ", ", b.kw, "), dilation=(", b.dh, ", ", b.dw, "), padding=(", b.ph, ", ", b.pw,
             "), calculated shape of the array of sliding blocks as (", oh, ", ", ow,
             "), but its components must be at least one.");
  check_block_dtype("im2col_out_cpu", x.dtype());
  const I64 n = x.sizes()[0];
  const I64 c = x.sizes()[1];
  const I64 pads[] = {b.pw, b.pw, b.ph, b.ph};
  const Tensor xp = b.ph == 0 && b.pw == 0 ? x : nn::functional::pad(x, IntArrayRef(pads, 4));
  const Tensor rows = index_select(xp, 2, tap_positions(oh, b.kh, b.sh, b.dh, x.device()));  // (N, C, oh*kh, Wp)
  const Tensor taps = index_select(rows, 3, tap_positions(ow, b.kw, b.sw, b.dw, x.device()));  // (N, C, oh*kh, ow*kw)
  const I64 split[] = {n, c, oh, b.kh, ow, b.kw};
  const I64 order[] = {0, 1, 3, 5, 2, 4};
  const I64 merged[] = {n, checked_mul(c, checked_mul(b.kh, b.kw, "unfold"), "unfold"), checked_mul(oh, ow, "unfold")};
  Tensor out = taps.reshape(IntArrayRef(split, 6)).permute(IntArrayRef(order, 6)).reshape(IntArrayRef(merged, 3));
  return batched ? out : out.squeeze(0);
}

Tensor fold_kernel(T input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride) {
  WICK_CHECK(output_size.size() == 2, RuntimeError, "It is expected output_size equals to 2, but got size ",
             output_size.size());
  const Blocks b = blocks_of(kernel_size, dilation, padding, stride);
  bool nonempty = input.dim() == 2 || input.dim() == 3;
  for (I64 d = input.dim() == 3 ? 1 : 0; nonempty && d < input.dim(); ++d) nonempty = input.sizes()[static_cast<std::size_t>(d)] != 0;
  WICK_CHECK(nonempty, RuntimeError,
             "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for "
             "input, but got: ",
             format_shape(input.sizes()));
  const bool batched = input.dim() == 3;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const I64 planes = x.sizes()[1];
  const I64 per_block = checked_mul(b.kh, b.kw, "fold");
  WICK_CHECK(planes % per_block == 0, RuntimeError,
             "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
             "input.size(1)=",
             planes, " and kernel_size=(", b.kh, ", ", b.kw, ").");
  const I64 h = output_size[0];
  const I64 w = output_size[1];
  // PyTorch rounds the block counts toward negative infinity here.
  auto count = [](I64 size, I64 k, I64 d, I64 p, I64 s) {
    const I64 span = checked_sub(checked_add(size, checked_mul(p, 2, "fold"), "fold"),
                                 checked_add(checked_mul(d, k - 1, "fold"), 1, "fold"), "fold");
    const I64 q = span / s;
    return (span % s != 0 && span < 0 ? q - 1 : q) + 1;  // floor division (s > 0)
  };
  const I64 oh = count(h, b.kh, b.dh, b.ph, b.sh);
  const I64 ow = count(w, b.kw, b.dw, b.pw, b.sw);
  const std::string geometry = detail::str_cat("Given output_size=(", h, ", ", w, "), kernel_size=(", b.kh, ", ", b.kw,
                                               "), dilation=(", b.dh, ", ", b.dw, "), padding=(", b.ph, ", ", b.pw,
                                               "), stride=(", b.sh, ", ", b.sw, "), ");
  const std::optional<I64> blocks = try_mul(oh, ow);
  WICK_CHECK(blocks && x.sizes()[2] == *blocks, RuntimeError, geometry,
             "expected size of input's dimension 2 to match the calculated number of sliding blocks ", oh, " * ", ow,
             " = ", blocks ? *blocks : 0, ", but got input.size(2)=", x.sizes()[2], ".");
  WICK_CHECK(oh >= 1 && ow >= 1, RuntimeError, geometry, "calculated shape of the array of sliding blocks as (", oh,
             ", ", ow, "), which is too small (non-positive)");
  check_block_dtype("col2im_out_cpu", x.dtype());
  const I64 n = x.sizes()[0];
  const I64 c = planes / per_block;
  const I64 hp = checked_add(h, 2 * b.ph, "fold");
  const I64 wp = checked_add(w, 2 * b.pw, "fold");
  const I64 split[] = {n, c, b.kh, b.kw, oh, ow};
  const I64 order[] = {0, 1, 4, 2, 5, 3};
  const I64 taps_shape[] = {n, c, oh * b.kh, ow * b.kw};
  const Tensor taps = x.reshape(IntArrayRef(split, 6)).permute(IntArrayRef(order, 6)).reshape(IntArrayRef(taps_shape, 4));
  const I64 cols_shape[] = {n, c, oh * b.kh, wp};
  const Tensor cols = index_add(zeros(IntArrayRef(cols_shape, 4), x.dtype(), x.device()), 3,
                                tap_positions(ow, b.kw, b.sw, b.dw, x.device()), taps);
  const I64 out_shape[] = {n, c, hp, wp};
  Tensor out = index_add(zeros(IntArrayRef(out_shape, 4), x.dtype(), x.device()), 2,
                         tap_positions(oh, b.kh, b.sh, b.dh, x.device()), cols);
  out = out.narrow(2, b.ph, h).narrow(3, b.pw, w);
  return batched ? out : out.squeeze(0);
}

// --- affine_grid ----------------------------------------------------------------------------------

// n points from -1 to 1 (0 alone when n <= 1), pulled in to pixel centres
// ((n - 1) / n) without align_corners, in the dtype of the grid.
// A complex theta gets the real grid with zero imaginary parts, as PyTorch's.
Tensor normalised_positions(I64 n, bool align_corners, ScalarType dtype, const Device& device) {
  if (n <= 1) return zeros(IntArrayRef(&n, 1), dtype, device);
  Tensor range = linspace(Scalar(-1), Scalar(1), n, to_real_dtype(dtype), device);
  if (!align_corners) range = div(mul(range, wrap_scalar(Scalar(n - 1))), wrap_scalar(Scalar(n)));
  return range.to(dtype);
}

Tensor affine_grid_generator_kernel(T theta, IntArrayRef size, bool align_corners) {
  const char* op = "torch.affine_grid_generator";
  WICK_CHECK(size.size() == 4 || size.size() == 5, RuntimeError, op,
             ": AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
  WICK_CHECK(is_floating(theta.dtype()) || is_complex(theta.dtype()), RuntimeError, op,
             ": theta must be a floating point or complex tensor, but got ", type_title(theta.dtype()));
  const bool volume = size.size() == 5;
  const I64 n = size[0];
  std::vector<Tensor> axes;  // x (the last dim), y, [z], 1
  const std::size_t spatial = volume ? 3 : 2;
  Tensor ones_part;
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::size_t dim = size.size() - 1 - i;  // W, H, [D]
    Tensor line = normalised_positions(size[dim], align_corners, theta.dtype(), theta.device());
    // Broadcast along the other spatial dims: shape (D?, H, W) with this one's extent.
    std::vector<I64> shape(spatial, 1);
    shape[spatial - 1 - i] = size[dim];
    axes.push_back(line.reshape(IntArrayRef(shape.data(), shape.size())));
  }
  std::vector<I64> full_shape;
  for (std::size_t i = 2; i < size.size(); ++i) full_shape.push_back(size[i]);
  std::vector<Tensor> parts;
  for (const Tensor& a : axes) parts.push_back(a.expand(IntArrayRef(full_shape.data(), full_shape.size())));
  parts.push_back(ones(IntArrayRef(full_shape.data(), full_shape.size()), theta.dtype(), theta.device()));
  I64 points = 1;
  for (const I64 s : full_shape) points = checked_mul(points, s, op);
  const I64 base_shape[] = {1, points, static_cast<I64>(spatial) + 1};
  const I64 batch_shape[] = {n, points, static_cast<I64>(spatial) + 1};
  const Tensor base = stack(parts, -1).reshape(IntArrayRef(base_shape, 3)).expand(IntArrayRef(batch_shape, 3));
  Tensor grid = bmm(base, theta.transpose(1, 2));
  std::vector<I64> out_shape{n};
  out_shape.insert(out_shape.end(), full_shape.begin(), full_shape.end());
  out_shape.push_back(static_cast<I64>(spatial));
  return grid.reshape(IntArrayRef(out_shape.data(), out_shape.size()));
}

Tensor affine_grid_kernel(T theta, IntArrayRef size, std::optional<bool> align_corners_arg) {
  if (!align_corners_arg)
    logging::warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.");
  const bool align_corners = align_corners_arg.value_or(false);
  WICK_CHECK(is_floating(theta.dtype()), ValueError, "Expected theta to have floating point type, but got ",
             "torch.", dtype_name(theta.dtype()));
  const std::string size_text = format_shape(size);
  const std::string shape_text = "torch.Size(" + format_shape(theta.sizes()) + ")";
  if (size.size() == 4) {
    WICK_CHECK(theta.dim() == 3 && theta.sizes()[1] == 2 && theta.sizes()[2] == 3, ValueError,
               "Expected a batch of 2D affine matrices of shape Nx2x3 for size ", size_text, ". Got ", shape_text, ".");
  } else if (size.size() == 5) {
    WICK_CHECK(theta.dim() == 3 && theta.sizes()[1] == 3 && theta.sizes()[2] == 4, ValueError,
               "Expected a batch of 3D affine matrices of shape Nx3x4 for size ", size_text, ". Got ", shape_text, ".");
  } else {
    WICK_CHECK(false, NotImplementedError,
               "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size ",
               size_text, ".");
  }
  for (std::size_t i = 2; i < size.size(); ++i)
    WICK_CHECK(size[i] > 0, ValueError, "Expected non-zero, positive output size. Got ", size_text);
  return affine_grid_generator_kernel(theta, size, align_corners);
}


// --- grid_sample ----------------------------------------------------------------------------------

// Note [Sampling a grid]
// grid_sample reads the input at each grid point, whose coordinates (x, y
// [, z]) in [-1, 1] address the input's (W, H [, D]). As PyTorch's kernels:
// a coordinate is unnormalised to (c + 1) / 2 (size - 1) with align_corners
// (the corner pixels' centres at +-1), else ((c + 1) size - 1) / 2 (their
// outer edges); padding 'border' clamps it to [0, size - 1], 'reflection'
// reflects it about the edges (or the corner centres) and then clamps;
// 'zeros' leaves it, and taps outside the input read 0. Bilinear (trilinear
// for 5-D inputs) weights the 2^d corners around the point by the opposite
// sub-box's volume, in PyTorch's corner order; nearest rounds half to even;
// bicubic (4-D only) uses Keys' kernel (A = -0.75) over 4 x 4 taps, each tap
// clamped or reflected by the padding mode, on the unpadded coordinate.
// Each tap is a gather of the flattened planes, so the gradient reaches the
// input (a scatter-add) and the grid (through the weights).
enum class GridMode : I64 { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class GridPadding : I64 { kZeros = 0, kBorder = 1, kReflection = 2 };

Tensor scalar_like(double v, T like) { return full(IntArrayRef(), Scalar(v), like.dtype(), like.device()); }

Tensor unnormalise(T c, I64 size, bool align_corners) {
  const Tensor one = scalar_like(1.0, c);
  if (align_corners) return mul(div(add(c, one), scalar_like(2.0, c)), scalar_like(static_cast<double>(size - 1), c));
  return div(sub(mul(add(c, one), scalar_like(static_cast<double>(size), c)), one), scalar_like(2.0, c));
}

Tensor clip(T c, I64 size) {
  return clamp(c, std::optional<Scalar>(Scalar(0)), std::optional<Scalar>(Scalar(size - 1)));
}

// Reflects c about [twice_low / 2, twice_high / 2] until it lies inside.
Tensor reflect(T c, I64 twice_low, I64 twice_high) {
  if (twice_low == twice_high) return mul(c, scalar_like(0.0, c));
  const double low = static_cast<double>(twice_low) / 2;
  const double span = static_cast<double>(twice_high - twice_low) / 2;
  const Tensor in = abs(sub(c, scalar_like(low, c)));
  const Tensor extra = fmod(in, Scalar(span));
  const Tensor flips = floor(div(in, scalar_like(span, c)));
  const Tensor even = eq(fmod(flips, Scalar(2)), Scalar(0));
  return where(even, add(extra, scalar_like(low, c)), add(sub(scalar_like(span, c), extra), scalar_like(low, c)));
}

Tensor apply_padding(T c, I64 size, GridPadding padding, bool align_corners) {
  if (padding == GridPadding::kBorder) return clip(c, size);
  if (padding == GridPadding::kReflection) {
    const Tensor r = align_corners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
    return clip(r, size);
  }
  return c;
}

// The input value at integer coordinates (one int64 tensor (N, G) per
// spatial dim, D/H/W order) of flat (N, C, P) planes: 0 outside the input.
Tensor tap(T planes, const std::vector<Tensor>& at, IntArrayRef sizes) {
  const I64 n = planes.sizes()[0];
  const I64 c = planes.sizes()[1];
  Tensor inside;
  Tensor linear;
  for (std::size_t d = 0; d < at.size(); ++d) {
    const Tensor ok = logical_and(ge(at[d], Scalar(0)), lt(at[d], Scalar(sizes[d])));
    inside = inside.defined() ? logical_and(inside, ok) : ok;
    linear = linear.defined() ? add(mul(linear, wrap_scalar(Scalar(sizes[d]))), at[d]) : at[d];
  }
  const I64 g = linear.sizes()[1];
  const I64 one_c[] = {n, 1, g};
  const I64 all_c[] = {n, c, g};
  const Tensor index = masked_fill(linear, logical_not(inside), Scalar(0)).reshape(IntArrayRef(one_c, 3));
  const Tensor v = gather(planes, 2, index.expand(IntArrayRef(all_c, 3)));
  return masked_fill(v, logical_not(inside).reshape(IntArrayRef(one_c, 3)), Scalar(0));
}

// Keys' cubic convolution weights (A = -0.75) of the 4 taps around t in [0, 1).
std::vector<Tensor> cubic_weights(T t) {
  const double a = -0.75;
  auto near = [&](T x) {  // ((A + 2) x - (A + 3)) x^2 + 1
    return add(mul(mul(sub(mul(scalar_like(a + 2, x), x), scalar_like(a + 3, x)), x), x), scalar_like(1.0, x));
  };
  auto far = [&](T x) {  // ((A x - 5A) x + 8A) x - 4A
    return sub(mul(add(mul(sub(mul(scalar_like(a, x), x), scalar_like(5 * a, x)), x), scalar_like(8 * a, x)), x),
               scalar_like(4 * a, x));
  };
  const Tensor one = scalar_like(1.0, t);
  const Tensor u = sub(one, t);
  return {far(add(t, one)), near(t), near(u), far(add(u, one))};
}

Tensor grid_sample_nd(T input, T grid, GridMode mode, GridPadding padding, bool align_corners, std::size_t dims) {
  const I64 n = input.sizes()[0];
  const I64 c = input.sizes()[1];
  Ints sizes;  // D, H, W
  for (std::size_t d = 0; d < dims; ++d) sizes.push_back(input.sizes()[2 + d]);
  I64 points = 1;
  Ints out_shape{n, c};
  for (std::size_t d = 0; d < dims; ++d) {
    points = checked_mul(points, grid.sizes()[1 + d], "grid_sample");
    out_shape.push_back(grid.sizes()[1 + d]);
  }
  I64 plane = 1;
  for (const I64 s : sizes) plane = checked_mul(plane, s, "grid_sample");
  const I64 flat_shape[] = {n, c, plane};
  const Tensor planes = input.reshape(IntArrayRef(flat_shape, 3));
  const I64 coord_shape[] = {n, points, static_cast<I64>(dims)};
  const Tensor coords = grid.reshape(IntArrayRef(coord_shape, 3));
  // Source coordinates in D/H/W order: grid's last entry is x (W).
  std::vector<Tensor> src;
  for (std::size_t d = 0; d < dims; ++d) {
    const Tensor g = coords.select(2, static_cast<I64>(dims - 1 - d));
    const Tensor u = unnormalise(g, sizes[d], align_corners);
    src.push_back(mode == GridMode::kBicubic ? u : apply_padding(u, sizes[d], padding, align_corners));
  }
  Tensor out;
  const auto accumulate = [&](T term) { out = out.defined() ? add(out, term) : term; };
  const I64 one_c[] = {n, 1, points};
  if (mode == GridMode::kNearest) {
    std::vector<Tensor> at;
    for (const Tensor& s : src) at.push_back(round(s).to(ScalarType::kInt64));
    out = tap(planes, at, sizes);
  } else if (mode == GridMode::kBilinear) {
    std::vector<Tensor> low;
    std::vector<Tensor> frac;  // s - floor(s)
    for (const Tensor& s : src) {
      low.push_back(floor(s));
      frac.push_back(sub(s, low.back()));
    }
    // Corners in PyTorch's order: the first dim (D or H) slowest, W fastest.
    for (I64 corner = 0; corner < (I64{1} << dims); ++corner) {
      std::vector<Tensor> at;
      Tensor weight;
      for (std::size_t d = 0; d < dims; ++d) {
        const bool high = ((corner >> (dims - 1 - d)) & 1) != 0;
        at.push_back((high ? add(low[d], scalar_like(1.0, low[d])) : low[d]).to(ScalarType::kInt64));
        const Tensor w = high ? frac[d] : sub(scalar_like(1.0, frac[d]), frac[d]);
        weight = weight.defined() ? mul(weight, w) : w;
      }
      accumulate(mul(tap(planes, at, sizes), weight.reshape(IntArrayRef(one_c, 3))));
    }
  } else {
    const Tensor y0 = floor(src[0]);
    const Tensor x0 = floor(src[1]);
    const std::vector<Tensor> wy = cubic_weights(sub(src[0], y0));
    const std::vector<Tensor> wx = cubic_weights(sub(src[1], x0));
    for (I64 i = 0; i < 4; ++i) {
      Tensor row;
      const Tensor y = apply_padding(add(y0, scalar_like(static_cast<double>(i - 1), y0)), sizes[0], padding,
                                     align_corners).to(ScalarType::kInt64);
      for (I64 j = 0; j < 4; ++j) {
        const Tensor x = apply_padding(add(x0, scalar_like(static_cast<double>(j - 1), x0)), sizes[1], padding,
                                       align_corners).to(ScalarType::kInt64);
        const Tensor term = mul(tap(planes, {y, x}, sizes), wx[static_cast<std::size_t>(j)].reshape(IntArrayRef(one_c, 3)));
        row = row.defined() ? add(row, term) : term;
      }
      accumulate(mul(row, wy[static_cast<std::size_t>(i)].reshape(IntArrayRef(one_c, 3))));
    }
  }
  return out.reshape(IntArrayRef(out_shape));
}

// torch.grid_sampler and its 2-D/3-D forms: PyTorch's checks, then the sampling.
Tensor grid_sampler_checked(T input, T grid, I64 mode, I64 padding, bool align_corners, I64 want_dims) {
  WICK_CHECK(input.dtype() == grid.dtype(), RuntimeError, "expected scalar type ", type_title(input.dtype()),
             " but found ", type_title(grid.dtype()));
  WICK_CHECK(input.device() == grid.device(), RuntimeError,
             "grid_sampler(): expected input and grid to be on same device, but input is on ", input.device().str(),
             " and grid is on ", grid.device().str());
  WICK_CHECK(input.dim() >= 1 && grid.dim() >= 1 && input.sizes()[0] == grid.sizes()[0], RuntimeError,
             "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
             format_shape(input.sizes()), " and grid with sizes ", format_shape(grid.sizes()));
  WICK_CHECK(grid.sizes().back() == input.dim() - 2, RuntimeError, "grid_sampler(): expected grid to have size ",
             input.dim() - 2, " in last dimension, but got grid with sizes ", format_shape(grid.sizes()));
  for (I64 i = 2; i < input.dim(); ++i)
    WICK_CHECK(input.sizes()[static_cast<std::size_t>(i)] > 0, RuntimeError,
               "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
               format_shape(input.sizes()), " with dimension ", i, " being empty");
  const I64 dims = want_dims != 0 ? want_dims : input.dim();
  WICK_CHECK((dims == 4 || dims == 5) && input.dim() == dims && grid.dim() == dims, RuntimeError,
             "grid_sampler(): expected ", dims, "D input and grid with same number of dimensions, but got input with "
             "sizes ", format_shape(input.sizes()), " and grid with sizes ", format_shape(grid.sizes()));
  WICK_CHECK(!(mode == static_cast<I64>(GridMode::kBicubic) && dims == 5), RuntimeError,
             "grid_sampler(): bicubic interpolation only supports 4D input");
  WICK_CHECK(mode >= 0 && mode <= 2, RuntimeError, "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 "
             "(nearest) or 2 (bicubic), but got ", mode);
  WICK_CHECK(padding >= 0 && padding <= 2, RuntimeError, "grid_sampler(): padding_mode must be 0 (zeros), 1 "
             "(border) or 2 (reflection), but got ", padding);
  const ScalarType t = input.dtype();
  if (t != ScalarType::kFloat32 && t != ScalarType::kFloat64) {
    // PyTorch 1.13's 2-D CPU kernel words this message without quotes.
    WICK_CHECK(dims != 4, RuntimeError, "grid_sampler_2d_cpu not implemented for ", type_title(t));
    throw_not_implemented_for("grid_sampler3d_cpu", t);
  }
  return grid_sample_nd(input, grid, static_cast<GridMode>(mode), static_cast<GridPadding>(padding), align_corners,
                        static_cast<std::size_t>(dims - 2));
}

Tensor grid_sampler_kernel(T input, T grid, I64 mode, I64 padding, bool align_corners) {
  return grid_sampler_checked(input, grid, mode, padding, align_corners, 0);
}
Tensor grid_sampler_2d_kernel(T input, T grid, I64 mode, I64 padding, bool align_corners) {
  return grid_sampler_checked(input, grid, mode, padding, align_corners, 4);
}
Tensor grid_sampler_3d_kernel(T input, T grid, I64 mode, I64 padding, bool align_corners) {
  return grid_sampler_checked(input, grid, mode, padding, align_corners, 5);
}

Tensor grid_sample_kernel(T input, T grid, std::string_view mode, std::string_view padding_mode,
                          std::optional<bool> align_corners) {
  I64 m = 0;
  if (mode == "nearest") m = 1;
  else if (mode == "bicubic") m = 2;
  else WICK_CHECK(mode == "bilinear", ValueError, "nn.functional.grid_sample(): expected mode to be 'bilinear', "
                  "'nearest' or 'bicubic', but got: '", mode, "'");
  I64 p = 0;
  if (padding_mode == "border") p = 1;
  else if (padding_mode == "reflection") p = 2;
  else WICK_CHECK(padding_mode == "zeros", ValueError, "nn.functional.grid_sample(): expected padding_mode to be "
                  "'zeros', 'border', or 'reflection', but got: '", padding_mode, "'");
  if (!align_corners)
    logging::warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.");
  return grid_sampler_checked(input, grid, m, p, align_corners.value_or(false), 0);
}

}  // namespace

void register_grid_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("affine_grid_generator", &affine_grid_generator_kernel)
      .impl("grid_sampler", &grid_sampler_kernel)
      .impl("grid_sampler_2d", &grid_sampler_2d_kernel)
      .impl("grid_sampler_3d", &grid_sampler_3d_kernel);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("unfold", &unfold_kernel)
      .impl("fold", &fold_kernel)
      .impl("affine_grid", &affine_grid_kernel)
      .impl("grid_sample", &grid_sample_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick
