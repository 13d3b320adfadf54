// dispatch/composite_shape.cpp - CompositeImplicit kernels of the shape and *_like operators (flatten, stack, split, broadcast_to, movedim, unbind, hstack, diff, ...).
/// \file
/// Each of these is written in terms of differentiable operators (reshape,
/// expand, narrow, unsqueeze, cat, zeros, ...), so it serves every backend
/// and Autograd needs no formula of its own: the graph is that of the parts.
/// flatten and unflatten are views; split and chunk return views.
#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/autograd/autograd_meta.h"
#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/dispatcher.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using T = const Tensor&;

Tensor flatten_kernel(const Tensor& self, I64 start_dim, I64 end_dim) {
  const I64 rank = std::max<I64>(self.dim(), 1);
  const I64 start = wrap_dim(start_dim, rank);
  const I64 end = wrap_dim(end_dim, rank);
  WICK_CHECK(start <= end, RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) return self.reshape({1});
  if (start == end) return self;
  DimVector shape;
  I64 merged = 1;
  for (I64 d = 0; d < self.dim(); ++d) {
    if (d < start || d > end) {
      shape.push_back(self.sizes()[d]);
    } else {
      merged = checked_mul(merged, self.sizes()[d], "torch.flatten");  // numel's, unless another size is 0
      if (d == end) shape.push_back(merged);
    }
  }
  return self.reshape(shape);
}

Tensor unflatten_kernel(const Tensor& self, I64 dim, IntArrayRef sizes) {
  const I64 d = wrap_dim(dim, self.dim());
  WICK_CHECK(!sizes.empty(), RuntimeError, "unflatten: sizes must be non-empty");
  I64 known = 0;
  int inferred = -1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      WICK_CHECK(inferred < 0, RuntimeError, "unflatten: only one dimension can be inferred");
      inferred = static_cast<int>(i);
    } else {
      WICK_CHECK(sizes[i] >= 0, RuntimeError, "unflatten: invalid shape dimension ", sizes[i]);
    }
  }
  // The product of the given sizes (0 when one is); past int64 it cannot
  // be the dim's size.
  const I64 size = self.sizes()[d];
  DimVector inner(sizes);
  if (inferred >= 0) inner[inferred] = 1;
  const std::optional<I64> product = try_numel(inner);
  if (product) known = *product;
  if (product && inferred >= 0 && known != 0 && size % known == 0) inner[inferred] = size / known;
  WICK_CHECK(product && (inferred < 0 ? known == size : known != 0 && size % known == 0), RuntimeError,
             "unflatten: Provided sizes ", format_shape(sizes), " don't multiply up to the size of dim ", dim, " (",
             size, ") in the input tensor");
  DimVector shape(IntArrayRef(self.sizes().data(), static_cast<std::size_t>(d)));
  for (I64 s : inner) shape.push_back(s);
  for (I64 i = d + 1; i < self.dim(); ++i) shape.push_back(self.sizes()[i]);
  return self.view(shape);
}

Tensor expand_as_kernel(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

Tensor view_as_kernel(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }

// fill_diagonal_: self[i, i, ..., i] = fill_value for every i in range of
// every dim (all equal past 2-D). With wrap=True a matrix taller than wide
// starts again every width + 1 rows, as the flat positions i * (width + 1)
// of a contiguous one would. The positions are marked in a bool mask
// (through views of its diagonals) and written by masked_fill_, whose
// gradients, backward and forward, are zero there.
Tensor fill_diagonal_kernel(const Tensor& self, const Scalar& fill_value, bool wrap) {
  const char* op = "fill_diagonal_";
  WICK_CHECK(self.dim() >= 2, RuntimeError, "dimensions must larger than 1");
  const I64 height = self.sizes()[0];
  const I64 width = self.sizes()[1];
  if (self.dim() > 2) {
    for (I64 d = 1; d < self.dim(); ++d)
      WICK_CHECK(self.sizes()[d] == height, RuntimeError, "all dimensions of input must be of equal length");
  }
  const Tensor mask = zeros(self.sizes(), ScalarType::kBool, Device(DeviceType::kCPU));
  const auto mark_diagonal_of = [](const Tensor& block) {
    Tensor d = block;
    while (d.dim() > 1) d = diagonal(d, 0, 0, 1);
    d.fill_(Scalar(true));
  };
  mark_diagonal_of(mask);
  if (wrap && self.dim() == 2 && height - 1 > width) {
    const I64 step = checked_add(width, 1, op);
    for (I64 start = step; start < height; start = checked_add(start, step, op))
      mark_diagonal_of(mask.narrow(0, start, std::min(width, height - start)));
  }
  static const auto masked_fill =
      find_op("torch.Tensor.masked_fill_").typed<Tensor(const Tensor&, const Tensor&, const Tensor&)>();
  return masked_fill.call(self, mask.to(self.device()), wrap_scalar(fill_value));
}

Tensor stack_kernel(const std::vector<Tensor>& tensors, I64 dim) {
  WICK_CHECK(!tensors.empty(), RuntimeError, "stack expects a non-empty TensorList");
  const Tensor& first = tensors.front();
  for (std::size_t i = 1; i < tensors.size(); ++i) {
    WICK_CHECK(tensors[i].sizes().equals(first.sizes()), RuntimeError,
               "stack expects each tensor to be equal size, but got ", format_shape(first.sizes()), " at entry 0 and ",
               format_shape(tensors[i].sizes()), " at entry ", i);
  }
  const I64 d = wrap_dim(dim, first.dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  return cat(parts, d);
}

std::vector<Tensor> split_sized(const Tensor& self, I64 split_size, I64 dim) {
  WICK_CHECK(self.dim() != 0, RuntimeError, "split expects at least a 1-dimensional tensor");
  WICK_CHECK(split_size >= 0, RuntimeError,
             "split expects split_size be non-negative, but got split_size=", split_size);
  const I64 d = wrap_dim(dim, self.dim());
  const I64 size = self.sizes()[d];
  WICK_CHECK(split_size != 0 || size == 0, RuntimeError,
             "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  // ceil(size / split_size) without forming size + split_size (split_size may be 2**63 - 1).
  const I64 n = split_size == 0 ? 1 : std::max<I64>(ceil_div(size, split_size, "torch.split"), 1);
  std::vector<Tensor> out;
  out.reserve(checked_list_length(n, "torch.split", "the number of pieces (the size over split_size)"));
  for (I64 i = 0; i < n; ++i) {
    const I64 start = i * split_size;
    out.push_back(self.narrow(d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes_kernel(const Tensor& self, IntArrayRef split_sizes, I64 dim) {
  WICK_CHECK(self.dim() != 0, RuntimeError, "split expects at least a 1-dimensional tensor");
  const I64 d = wrap_dim(dim, self.dim());
  const I64 size = self.sizes()[d];
  I64 total = 0;
  for (I64 s : split_sizes) {
    WICK_CHECK(s >= 0, RuntimeError, "split_with_sizes expects split_sizes have only non-negative entries, but got ",
               "split_sizes=", format_shape(split_sizes));
    // A sum past int64 cannot equal the size: the same error as any other wrong sum.
    const std::optional<I64> sum = try_add(total, s);
    WICK_CHECK(sum, RuntimeError, "split_with_sizes expects split_sizes to sum exactly to ", size,
               " (input tensor's size at dimension ", d, "), but got split_sizes=", format_shape(split_sizes));
    total = *sum;
  }
  WICK_CHECK(total == size, RuntimeError, "split_with_sizes expects split_sizes to sum exactly to ", size,
             " (input tensor's size at dimension ", d, "), but got split_sizes=", format_shape(split_sizes));
  std::vector<Tensor> out;
  out.reserve(checked_list_length(static_cast<I64>(split_sizes.size()), "torch.split_with_sizes", "split_sizes"));
  I64 start = 0;
  for (I64 s : split_sizes) {
    out.push_back(self.narrow(d, start, s));
    start += s;  // a partial sum of the checked total
  }
  return out;
}

// torch.split takes an int (a chunk size) or a list of sizes.
std::vector<Tensor> split_kernel(const Tensor& self, const Value& split_size_or_sections, I64 dim) {
  const Value& v = split_size_or_sections;
  if (v.is_int()) return split_sized(self, v.to_int(), dim);
  if (v.is_int_list()) return split_with_sizes_kernel(self, v.to_int_list(), dim);
  if (v.is_list() || v.is_tuple()) {
    std::vector<I64> sizes;
    for (const Value& item : v.items()) {
      WICK_CHECK(item.is_int(), TypeError, "split(): argument 'split_size_or_sections' must be int or tuple of ints, ",
                 "but found an element of type ", item.type_name());
      sizes.push_back(item.to_int());
    }
    return split_with_sizes_kernel(self, sizes, dim);
  }
  throw TypeError(detail::str_cat("split(): argument 'split_size_or_sections' (position 2) must be int or tuple of ",
                                  "ints, not ", v.type_name()));
}

std::vector<Tensor> chunk_kernel(const Tensor& self, I64 chunks, I64 dim) {
  WICK_CHECK(self.dim() != 0, RuntimeError, "chunk expects at least a 1-dimensional tensor");
  WICK_CHECK(chunks > 0, RuntimeError, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const I64 d = wrap_dim(dim, self.dim());
  const I64 size = self.sizes()[d];
  // PyTorch's (size + chunks - 1) / chunks, checked: for chunks near 2**63
  // PyTorch 1.13's sum wraps around and it raises a RuntimeError from the
  // wrapped value ("split expects split_size be non-negative, but got
  // split_size=-1" for a 3x4 tensor and chunks=2**63 - 1); wick raises one
  // naming the overflow.
  const I64 split_size = checked_add(size, chunks - 1, "torch.chunk") / chunks;
  if (split_size != 0 || size != 0) return split_sized(self, split_size, d);
  // An empty dim splits into `chunks` empty pieces (PyTorch builds that many
  // sizes, and fails with "cannot create std::vector larger than
  // max_size()" for 2**63 - 1 of them).
  const std::size_t n = checked_list_length(chunks, "torch.chunk", "chunks of an empty dimension");
  return split_with_sizes_kernel(self, DimVector(n, 0), d);
}

Tensor repeat_kernel(const Tensor& self, IntArrayRef repeats) {
  const auto n = static_cast<I64>(repeats.size());
  WICK_CHECK(n >= self.dim(), RuntimeError,
             "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  DimVector interleaved;
  DimVector expanded;
  DimVector result;
  for (I64 i = 0; i < n; ++i) {
    const I64 d = i - (n - self.dim());
    const I64 size = d >= 0 ? self.sizes()[d] : 1;
    interleaved.push_back(1);
    interleaved.push_back(size);
    expanded.push_back(repeats[i]);
    expanded.push_back(size);
    result.push_back(checked_mul(repeats[i], size, "torch.Tensor.repeat"));
  }
  for (I64 s : result)
    WICK_CHECK(s >= 0, RuntimeError, "Trying to create tensor with negative dimension ",
               *std::min_element(result.begin(), result.end()), ": ", format_shape(result));
  Tensor r = self.reshape(interleaved).expand(expanded).reshape(result);
  // repeat always copies, even when every factor is 1.
  return r.storage().get() == self.storage().get() ? r.clone() : r;
}

// Rotates along one dim: the last `shift` entries move to the front.
Tensor roll_one(const Tensor& self, I64 shift, I64 dim) {
  const I64 size = self.sizes()[dim];
  if (size == 0) return self.clone();
  // shift % size first: size - shift overflows for shifts near INT64_MIN.
  const I64 start = (size - shift % size) % size;
  return cat({self.narrow(dim, start, size - start), self.narrow(dim, 0, start)}, dim);
}

Tensor roll_kernel(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  WICK_CHECK(!shifts.empty(), RuntimeError, "`shifts` required");
  if (dims.empty() && shifts.size() == 1) return roll_one(flatten(self), shifts[0], 0).view(self.sizes());
  WICK_CHECK(shifts.size() == dims.size(), RuntimeError, "shifts and dimensions must align. shifts: ", shifts.size(),
             ", dims:", dims.size());
  Tensor r = self;
  for (std::size_t i = 0; i < dims.size(); ++i) r = roll_one(r, shifts[i], wrap_dim(dims[i], self.dim()));
  return r;
}

Tensor zeros_like_kernel(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return zeros(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
}
Tensor ones_like_kernel(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return ones(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
}
Tensor full_like_kernel(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                        std::optional<Device> device) {
  return full(self.sizes(), fill_value, dtype.value_or(self.dtype()), device.value_or(self.device()));
}

// --- broadcast_to, movedim, unbind, the stacks, diff ----------------------------------------

Tensor broadcast_to_kernel(const Tensor& self, IntArrayRef size) { return self.expand(size); }

// PyTorch's checks: as many sources as destinations, each in range and
// none repeated; the other dims keep their order in the remaining places.
Tensor movedim_kernel(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const char* op = "movedim";
  WICK_CHECK(source.size() == destination.size(), RuntimeError, op,
             ": Invalid source or destination dims: source (", format_shape(source), " dims) should contain the same "
             "number of dims as destination (", format_shape(destination), " dims)");
  const I64 rank = self.dim();
  const auto n = static_cast<I64>(source.size());
  DimVector src(static_cast<std::size_t>(n));
  DimVector dst(static_cast<std::size_t>(n));
  for (I64 k = 0; k < n; ++k) {
    src[static_cast<std::size_t>(k)] = wrap_dim(source[k], rank);
    dst[static_cast<std::size_t>(k)] = wrap_dim(destination[k], rank);
  }
  for (I64 a = 0; a < n; ++a) {
    for (I64 b = a + 1; b < n; ++b) {
      WICK_CHECK(src[static_cast<std::size_t>(a)] != src[static_cast<std::size_t>(b)], RuntimeError, op,
                 ": repeated dim in `source` (", format_shape(source), ")");
      WICK_CHECK(dst[static_cast<std::size_t>(a)] != dst[static_cast<std::size_t>(b)], RuntimeError, op,
                 ": repeated dim in `destination` (", format_shape(destination), ")");
    }
  }
  if (rank == 0) return self.view(self.sizes());
  DimVector order(static_cast<std::size_t>(rank), -1);  // the source dim at each place
  std::vector<bool> moved(static_cast<std::size_t>(rank), false);
  for (I64 k = 0; k < n; ++k) {
    order[static_cast<std::size_t>(dst[static_cast<std::size_t>(k)])] = src[static_cast<std::size_t>(k)];
    moved[static_cast<std::size_t>(src[static_cast<std::size_t>(k)])] = true;
  }
  I64 next = 0;
  for (I64 place = 0; place < rank; ++place) {
    if (order[static_cast<std::size_t>(place)] >= 0) continue;
    while (moved[static_cast<std::size_t>(next)]) ++next;
    order[static_cast<std::size_t>(place)] = next++;
  }
  return self.permute(order);
}

std::vector<Tensor> unbind_kernel(const Tensor& self, I64 dim) {
  WICK_CHECK(self.dim() > 0, IndexError, "Dimension specified as ", dim, " but tensor has no dimensions");
  const I64 d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  for (I64 i = 0; i < self.sizes()[d]; ++i) out.push_back(self.select(d, i));
  return out;
}

// The tensors as at least `rank`-D, as torch.atleast_1d/2d/3d shape them.
std::vector<Tensor> at_least(const std::vector<Tensor>& tensors, I64 rank) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) {
    if (t.dim() >= rank) {
      out.push_back(t);
    } else if (t.dim() == 0) {
      out.push_back(t.reshape(DimVector(static_cast<std::size_t>(rank), 1)));
    } else if (t.dim() == 1) {
      out.push_back(rank == 2 ? t.unsqueeze(0) : t.unsqueeze(0).unsqueeze(2));  // (1, n), (1, n, 1)
    } else {
      out.push_back(t.unsqueeze(2));  // 2-D to 3-D: (m, n, 1)
    }
  }
  return out;
}

void check_nonempty(const std::vector<Tensor>& tensors, const char* name) {
  WICK_CHECK(!tensors.empty(), RuntimeError, name, " expects a non-empty TensorList");
}

Tensor hstack_kernel(const std::vector<Tensor>& tensors) {
  check_nonempty(tensors, "hstack");
  const std::vector<Tensor> ts = at_least(tensors, 1);
  return cat(ts, ts.front().dim() == 1 ? 0 : 1);
}

Tensor vstack_kernel(const std::vector<Tensor>& tensors) {
  check_nonempty(tensors, "vstack");
  return cat(at_least(tensors, 2), 0);
}

Tensor dstack_kernel(const std::vector<Tensor>& tensors) {
  check_nonempty(tensors, "dstack");
  return cat(at_least(tensors, 3), 2);
}

Tensor column_stack_kernel(const std::vector<Tensor>& tensors) {
  check_nonempty(tensors, "column_stack");
  std::vector<Tensor> columns;
  for (const Tensor& t : tensors) columns.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return cat(columns, 1);
}

// n forward differences along dim of prepend, self and append joined; bools differ by !=.
// An order of 0 or less leaves them as they are, as PyTorch 1.13.
Tensor diff_kernel(const Tensor& self, I64 n, I64 dim, const std::optional<Tensor>& prepend,
                   const std::optional<Tensor>& append) {
  WICK_CHECK(self.dim() >= 1, RuntimeError, "diff expects input to be at least one-dimensional");
  const I64 d = wrap_dim(dim, self.dim());
  std::vector<Tensor> parts;
  for (const std::optional<Tensor>* extra : {&prepend, &append}) {
    if (!*extra) continue;
    const Tensor& e = **extra;
    WICK_CHECK(e.dim() == self.dim(), RuntimeError, "diff expects prepend or append to be the same dimension as input");
    for (I64 k = 0; k < self.dim(); ++k) {
      WICK_CHECK(k == d || e.sizes()[k] == self.sizes()[k], RuntimeError,
                 "diff expects the shape of tensor to prepend or append to match that of input except along the "
                 "differencing dimension; input.size(", k, ") = ", self.sizes()[k], ", but got tensor.size(", k,
                 ") = ", e.sizes()[k]);
    }
  }
  Tensor x = self;
  if (prepend || append) {
    if (prepend) parts.push_back(*prepend);
    parts.push_back(self);
    if (append) parts.push_back(*append);
    x = cat(parts, d);
  }
  for (I64 k = 0; k < n && x.sizes()[d] > 0; ++k) {
    const I64 len = x.sizes()[d];
    const Tensor hi = x.narrow(d, 1, len - 1);
    const Tensor lo = x.narrow(d, 0, len - 1);
    x = x.dtype() == ScalarType::kBool ? ne(hi, lo) : sub(hi, lo);
  }
  return n <= 0 ? x.clone() : x;  // PyTorch 1.13 returns the input for an order below 1
}

Tensor ravel_kernel(const Tensor& self) { return self.contiguous().view({-1}); }

Tensor fliplr_kernel(const Tensor& self) {
  WICK_CHECK(self.dim() >= 2, RuntimeError, "Input must be >= 2-d.");
  return flip(self, {1});
}

Tensor flipud_kernel(const Tensor& self) {
  WICK_CHECK(self.dim() >= 1, RuntimeError, "Input must be >= 1-d.");
  return flip(self, {0});
}

// k quarter turns from dims[0] towards dims[1]: one flip, then a swap of the two dims.
Tensor rot90_kernel(const Tensor& self, I64 k, IntArrayRef dims) {
  const I64 rank = self.dim();
  WICK_CHECK(dims.size() == 2, RuntimeError, "expected total rotation dims == 2, but got dims = ", dims.size());
  WICK_CHECK(rank >= 2, RuntimeError, "expected total dims >= 2, but got total dims = ", rank);
  const auto in_range = [rank](I64 d) { return d < rank && d >= -rank; };
  // Two dims naming one (d and d - rank) are the same, as PyTorch: |dims[0] - dims[1]| == rank.
  const std::uint64_t gap = static_cast<std::uint64_t>(dims[0]) - static_cast<std::uint64_t>(dims[1]);
  const auto urank = static_cast<std::uint64_t>(rank);
  const bool same = dims[0] == dims[1] || gap == urank || gap == std::uint64_t{0} - urank;
  WICK_CHECK(!same, RuntimeError, "expected rotation dims to be different, but got dim0 = ", dims[0],
             " and dim1 = ", dims[1]);
  WICK_CHECK(in_range(dims[0]), RuntimeError, "Rotation dim0 out of range, dim0 = ", dims[0]);
  WICK_CHECK(in_range(dims[1]), RuntimeError, "Rotation dim1 out of range, dim1 = ", dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return flip(self, {dims[1]}).transpose(dims[0], dims[1]);
    case 2:
      return flip(self, dims);
    case 3:
      return flip(self, {dims[0]}).transpose(dims[0], dims[1]);
    default:
      return self.clone();
  }
}

Tensor tile_kernel(const Tensor& self, IntArrayRef dims) {
  if (static_cast<I64>(dims.size()) >= self.dim()) return self.repeat(dims);
  DimVector padded(static_cast<std::size_t>(self.dim()) - dims.size(), 1);
  for (const I64 n : dims) padded.push_back(n);
  return self.repeat(padded);
}

// Note [repeat_interleave on the host]: the counts are read to the host, as
// PyTorch's CPU kernel does, and make the int64 positions i repeated
// counts[i] times, on the counts' device.
Tensor repeat_interleave_counts_kernel(const Tensor& repeats, std::optional<I64> output_size) {
  WICK_CHECK(repeats.dim() == 1, RuntimeError, "repeat_interleave only accept 1D vector as repeat");
  WICK_CHECK(repeats.dtype() == ScalarType::kInt64 || repeats.dtype() == ScalarType::kInt32, RuntimeError,
             "\"repeat_interleave_cpu\" not implemented for '", type_title(repeats.dtype()), "'");
  const Tensor counts = repeats.to(Device(), ScalarType::kInt64).contiguous();
  const auto* c = counts.data_ptr<I64>();
  I64 total = 0;
  for (I64 i = 0; i < counts.numel(); ++i) {
    WICK_CHECK(c[i] >= 0, RuntimeError, "repeats can not be negative");
    total = checked_add(total, c[i], "torch.repeat_interleave");
  }
  WICK_CHECK(!output_size || *output_size == total, RuntimeError, "allocated size does not match required size");
  Tensor positions = make_empty({static_cast<I64>(checked_list_length(total, "torch.repeat_interleave",
                                                                       "the result's length"))},
                                ScalarType::kInt64, Device());
  I64* p = positions.data_ptr<I64>();
  for (I64 i = 0; i < counts.numel(); ++i) p = std::fill_n(p, c[i], i);
  return positions.to(repeats.device());
}

Tensor repeat_interleave_kernel(const Tensor& self, const Tensor& repeats, std::optional<I64> dim,
                                std::optional<I64> output_size) {
  const Tensor input = dim ? self : self.reshape({-1});
  const I64 d = dim ? wrap_dim(*dim, std::max<I64>(self.dim(), 1)) : 0;
  WICK_CHECK(repeats.dim() <= 1, RuntimeError, "repeats must be 0-dim or 1-dim tensor");
  const I64 along = input.dim() == 0 ? 1 : input.sizes()[d];
  Tensor counts = repeats;
  if (repeats.dim() == 0 || repeats.numel() == 1) {
    counts = repeats.reshape({1}).expand({along});
  } else {
    WICK_CHECK(repeats.numel() == along, RuntimeError, "repeats must have the same size as input along dim");
  }
  const Tensor positions = repeat_interleave_counts_kernel(counts, output_size).to(input.device());
  return index_select(input.dim() == 0 ? input.reshape({1}) : input, d, positions);
}

Tensor repeat_interleave_int_kernel(const Tensor& self, I64 repeats, std::optional<I64> dim,
                                    std::optional<I64> output_size) {
  Tensor counts = make_empty({1}, ScalarType::kInt64, Device());
  *counts.data_ptr<I64>() = repeats;
  return repeat_interleave_kernel(self, counts, dim, output_size);
}

// Python slice bounds: negative from the end, then clamped to [0, size].
I64 slice_bound(I64 i, I64 size) {
  if (i < 0) i = i < -size ? 0 : i + size;
  return std::min(i, size);
}

std::vector<Tensor> split_at(const Tensor& self, IntArrayRef indices, I64 d) {
  const I64 size = self.sizes()[d];
  std::vector<Tensor> out;
  I64 start = 0;
  for (std::size_t k = 0; k <= indices.size(); ++k) {
    const I64 end = k < indices.size() ? slice_bound(indices[k], size) : size;
    out.push_back(self.narrow(d, start, std::max<I64>(end - start, 0)));
    start = end;
  }
  return out;
}

std::vector<Tensor> split_sections(const Tensor& self, I64 sections, I64 d) {
  WICK_CHECK(sections > 0, RuntimeError, "number of sections must be larger than 0, got ", sections);
  const I64 size = self.sizes()[d];
  const I64 piece = size / sections;
  const I64 extra = size % sections;
  std::vector<Tensor> out;
  out.reserve(checked_list_length(sections, "torch.tensor_split", "the number of sections"));
  I64 start = 0;
  for (I64 i = 0; i < sections; ++i) {
    const I64 length = piece + (i < extra ? 1 : 0);
    out.push_back(self.narrow(d, start, length));
    start += length;
  }
  return out;
}

// The checks every tensor_split makes first.
I64 split_dim(const Tensor& self, I64 dim) {
  WICK_CHECK(self.dim() > 0, RuntimeError, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
             self.dim(), " dims");
  return wrap_dim(dim, self.dim());
}

std::vector<Tensor> tensor_split_kernel(const Tensor& self, I64 sections, I64 dim) {
  return split_sections(self, sections, split_dim(self, dim));
}

std::vector<Tensor> tensor_split_indices_kernel(const Tensor& self, IntArrayRef indices, I64 dim) {
  return split_at(self, indices, split_dim(self, dim));
}

std::vector<Tensor> tensor_split_by_kernel(const Tensor& self, const Tensor& t, I64 dim) {
  const I64 d = split_dim(self, dim);
  WICK_CHECK(t.device().is_cpu(), RuntimeError,
             "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ", t.device().str());
  WICK_CHECK(t.dtype() == ScalarType::kInt64, RuntimeError,
             "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ", type_title(t.dtype()));
  WICK_CHECK(t.dim() <= 1, RuntimeError,
             "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
             "but got a tensor with ", t.dim(), " dims");
  if (t.dim() == 0) return split_sections(self, t.item().to<I64>(), d);
  const Tensor dense = t.contiguous();
  return split_at(self, IntArrayRef(dense.data_ptr<I64>(), static_cast<std::size_t>(dense.numel())), d);
}

// hsplit, vsplit, dsplit: tensor_split along `d` of a tensor with at least
// `min_rank` dims; a number of sections must divide the size.
I64 split_along(const Tensor& self, I64 min_rank, I64 d, const char* name) {
  WICK_CHECK(self.dim() >= min_rank, RuntimeError, "torch.", name, " requires a tensor with at least ", min_rank,
             " dimension, but got a tensor with ", self.dim(), " dimensions!");
  return d;
}
std::vector<Tensor> split_sections_along(const Tensor& self, I64 sections, I64 min_rank, I64 d, const char* name) {
  split_along(self, min_rank, d, name);
  const I64 size = self.sizes()[d];
  WICK_CHECK(sections != 0 && size % sections == 0, RuntimeError, "torch.", name,
             " attempted to split along dimension ", d, ", but the size of the dimension ", size,
             " is not divisible by the split_size ", sections, "!");
  return tensor_split_kernel(self, sections, d);
}
I64 hsplit_dim(const Tensor& self) { return self.dim() == 1 ? 0 : 1; }
std::vector<Tensor> hsplit_kernel(const Tensor& self, I64 sections) {
  return split_sections_along(self, sections, 1, hsplit_dim(self), "hsplit");
}
std::vector<Tensor> hsplit_array_kernel(const Tensor& self, IntArrayRef indices) {
  return tensor_split_indices_kernel(self, indices, split_along(self, 1, hsplit_dim(self), "hsplit"));
}
std::vector<Tensor> vsplit_kernel(const Tensor& self, I64 sections) {
  return split_sections_along(self, sections, 2, 0, "vsplit");
}
std::vector<Tensor> vsplit_array_kernel(const Tensor& self, IntArrayRef indices) {
  return tensor_split_indices_kernel(self, indices, split_along(self, 2, 0, "vsplit"));
}
std::vector<Tensor> dsplit_kernel(const Tensor& self, I64 sections) {
  return split_sections_along(self, sections, 3, 2, "dsplit");
}
std::vector<Tensor> dsplit_array_kernel(const Tensor& self, IntArrayRef indices) {
  return tensor_split_indices_kernel(self, indices, split_along(self, 3, 2, "dsplit"));
}

// --- pixel and channel shuffles ---------------------------------------------------------------------

// The sizes before the last `trailing` dims, with `tail` appended.
DimVector lead_with(const Tensor& self, std::int64_t trailing, std::initializer_list<std::int64_t> tail) {
  DimVector s(IntArrayRef(self.sizes().data(), static_cast<std::size_t>(self.dim() - trailing)));
  for (std::int64_t v : tail) s.push_back(v);
  return s;
}

// A new tensor, as PyTorch's shuffles return: `out` itself, or its copy
// where the reshapes could keep a view of `self` (sizes of 1).
Tensor fresh(const Tensor& out, const Tensor& self) {
  return out.numel() > 0 && out.storage().get() == self.storage().get() ? out.clone() : out;
}

// The identity permutation of the first `n` dims, then `n + k` for each k of `tail`.
DimVector lead_perm(std::int64_t n, std::initializer_list<std::int64_t> tail) {
  DimVector p;
  for (std::int64_t i = 0; i < n; ++i) p.push_back(i);
  for (std::int64_t k : tail) p.push_back(n + k);
  return p;
}

// (*, C r^2, H, W) -> (*, C, H r, W r): element (c, h r + i, w r + j) comes
// from channel c r^2 + i r + j at (h, w).
Tensor pixel_shuffle_kernel(const Tensor& self, std::int64_t r) {
  const char* op = "torch.pixel_shuffle";
  WICK_CHECK(self.dim() >= 3, RuntimeError, op,
             ": pixel_shuffle expects input to have at least 3 dimensions, but got input with ", self.dim(),
             " dimension(s)");
  WICK_CHECK(r > 0, RuntimeError, op, ": pixel_shuffle expects a positive upscale_factor, but got ", r);
  const std::int64_t c = self.size(-3);
  const std::int64_t h = self.size(-2);
  const std::int64_t w = self.size(-1);
  const std::int64_t r2 = checked_mul(r, r, op);
  WICK_CHECK(c % r2 == 0, RuntimeError, op,
             ": pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
             "upscale_factor, but input.size(-3)=",
             c, " is not divisible by ", r2);
  const std::int64_t n = self.dim() - 3;
  const Tensor x = self.reshape(lead_with(self, 3, {c / r2, r, r, h, w}));
  return fresh(x.permute(lead_perm(n, {0, 3, 1, 4, 2}))
                   .reshape(lead_with(self, 3, {c / r2, checked_mul(h, r, op), checked_mul(w, r, op)})),
               self);
}

// The inverse: (*, C, H r, W r) -> (*, C r^2, H, W).
Tensor pixel_unshuffle_kernel(const Tensor& self, std::int64_t r) {
  const char* op = "torch.pixel_unshuffle";
  WICK_CHECK(self.dim() >= 3, RuntimeError, op,
             ": pixel_unshuffle expects input to have at least 3 dimensions, but got input with ", self.dim(),
             " dimension(s)");
  WICK_CHECK(r > 0, RuntimeError, op, ": pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const std::int64_t c = self.size(-3);
  const std::int64_t h = self.size(-2);
  const std::int64_t w = self.size(-1);
  WICK_CHECK(h % r == 0, RuntimeError, op,
             ": pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
             " is not divisible by ", r);
  WICK_CHECK(w % r == 0, RuntimeError, op,
             ": pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
             " is not divisible by ", r);
  const std::int64_t n = self.dim() - 3;
  const Tensor x = self.reshape(lead_with(self, 3, {c, h / r, r, w / r, r}));
  return fresh(x.permute(lead_perm(n, {0, 2, 4, 1, 3}))
                   .reshape(lead_with(self, 3, {checked_mul(c, checked_mul(r, r, op), op), h / r, w / r})),
               self);
}

// (N, g c, *) -> (N, c g, *): channel k c + j moves to j g + k.
Tensor channel_shuffle_impl(const char* op, const Tensor& self, std::int64_t groups) {
  WICK_CHECK(self.dim() > 2, RuntimeError, op, ": channel_shuffle expects input with > 2 dims, but got input with sizes ",
             format_shape(self.sizes()));
  WICK_CHECK(groups > 0, RuntimeError, op,
             ": Number of groups to divide channels in must be positive. Value of groups:", groups);
  const std::int64_t c = self.sizes()[1];
  WICK_CHECK(c % groups == 0, RuntimeError, op, ": Number of channels must be divisible by groups. Got ", c,
             " channels and ", groups, " groups.");
  DimVector split(self.sizes());
  split[1] = c / groups;
  split.insert(1, groups);
  return fresh(self.reshape(split).transpose(1, 2).reshape(self.sizes()), self);
}
Tensor channel_shuffle_kernel(const Tensor& self, std::int64_t groups) {
  return channel_shuffle_impl("torch.channel_shuffle", self, groups);
}
Tensor native_channel_shuffle_kernel(const Tensor& self, std::int64_t groups) {
  return channel_shuffle_impl("torch.native_channel_shuffle", self, groups);
}

// --- the *_scatter functions, sum_to_size, Tensor.unfold -------------------------------------

// A copy of self whose `view` of it is src (converted to self's dtype): the
// clone and the in-place copy into its view are recorded as any others, so
// both self and src get gradients.
template <class View>
Tensor scatter_into_view(T self, T src, View view) {
  Tensor out = self.clone();
  Tensor part = view(out);
  WICK_CHECK(src.sizes() == part.sizes(), RuntimeError,
             "expected src to have a size equal to the slice of self. src size = ", format_shape(src.sizes()),
             ", slice size = ", format_shape(part.sizes()));
  part.copy_(src);
  return out;
}

Tensor select_scatter_kernel(T self, T src, I64 dim, I64 index) {
  return scatter_into_view(self, src, [&](T t) { return t.select(dim, index); });
}
Tensor slice_scatter_kernel(T self, T src, I64 dim, std::optional<I64> start, std::optional<I64> end, I64 step) {
  return scatter_into_view(self, src, [&](T t) { return aten::slice(t, dim, start, end, step); });
}
Tensor diagonal_scatter_kernel(T self, T src, I64 offset, I64 dim1, I64 dim2) {
  return scatter_into_view(self, src, [&](T t) { return t.diagonal(offset, dim1, dim2); });
}
Tensor as_strided_scatter_kernel(T self, T src, IntArrayRef size, IntArrayRef stride, std::optional<I64> offset) {
  // The view of the clone, whose storage starts at 0: an offset counts from there.
  return scatter_into_view(self, src, [&](T t) { return t.as_strided(size, stride, offset); });
}

// as_strided's checks (PyTorch's messages), then the view: every element it
// addresses inside self's storage.
Tensor as_strided_kernel(T self, IntArrayRef size, IntArrayRef stride, std::optional<I64> storage_offset) {
  const char* op = "torch.as_strided";
  WICK_CHECK(size.size() == stride.size(), RuntimeError, op, ": mismatch in length of strides and shape");
  bool negative_size = false;
  for (const I64 s : stride) {
    WICK_CHECK(s >= 0, RuntimeError, op, ": as_strided: Negative strides are not supported at the moment, got "
               "strides: ", format_shape(stride));
  }
  for (const I64 n : size) negative_size = negative_size || n < 0;
  WICK_CHECK(!negative_size, RuntimeError, op, ": Storage size calculation overflowed with sizes=", format_shape(size),
             " and strides=", format_shape(stride));
  const I64 offset = storage_offset.value_or(self.storage_offset());
  WICK_CHECK(offset >= 0, RuntimeError, op, ": Tensor: invalid storage offset ", offset);
  const auto item = static_cast<I64>(itemsize(self.dtype()));
  const auto available = static_cast<I64>(self.storage()->nbytes()) / item;
  bool empty_view = false;
  I64 last = offset;  // the largest element addressed
  for (std::size_t d = 0; d < size.size(); ++d) {
    empty_view = empty_view || size[d] == 0;
    if (size[d] > 0) last = checked_add(last, checked_mul(size[d] - 1, stride[d], op), op);
  }
  const I64 needed = empty_view ? 0 : checked_add(last, 1, op);
  WICK_CHECK(needed <= available, RuntimeError, op, ": setStorage: sizes ", format_shape(size), ", strides ",
             format_shape(stride), ", storage offset ", offset, ", and itemsize ", item, " requiring a storage size of ",
             checked_mul(needed, item, op), " are out of bounds for storage of size ", checked_mul(available, item, op));
  return make_view(self, size, stride, offset);
}

// The sum over the leading dims self has beyond `size` and over the dims
// where size is 1 and self's is not; self when nothing is summed.
Tensor sum_to_size_kernel(T self, IntArrayRef size) {
  WICK_CHECK(autograd::is_expandable_to(size, self.sizes()), RuntimeError, "torch.Tensor.sum_to_size: size {",
             format_shape(size), "} is not expandable to size {", format_shape(self.sizes()), "}.");
  return autograd::sum_to(self, size);  // the reduction of a broadcast gradient
}

// The windows of Tensor.unfold as a view (its gradient is in
// dispatch/autograd/shape.cpp): dim's size becomes the number of windows,
// its stride step times the old one, and a last dim of `size` walks one
// window. A 0-dim tensor is one element along dim 0.
Tensor unfold_kernel(T self, I64 dimension, I64 size, I64 step) {
  const char* op = "torch.Tensor.unfold";
  const I64 rank = self.dim();
  const I64 d = wrap_dim(dimension, std::max<I64>(rank, 1));
  const I64 length = rank == 0 ? 1 : self.sizes()[d];
  const I64 stride = rank == 0 ? 1 : self.strides()[d];
  WICK_CHECK(size <= length, RuntimeError, op, ": maximum size for tensor at dimension ", d, " is ", length,
             " but size is ", size);
  WICK_CHECK(step > 0, RuntimeError, op, ": step is ", step, " but must be > 0");
  WICK_CHECK(size >= 0, RuntimeError, op, ": size is ", size, " but must be >= 0");
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  const I64 windows = (length - size) / step + 1;
  if (rank > 0) {
    sizes[static_cast<std::size_t>(d)] = windows;
    strides[static_cast<std::size_t>(d)] = checked_mul(step, stride, op);
  }
  sizes.push_back(size);
  strides.push_back(stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

bool is_same_size_kernel(T self, T other) { return self.sizes() == other.sizes(); }

// bool(tensor): one element, compared with zero (NaN is true, as in Python).
bool is_nonzero_kernel(T self) {
  // PyTorch's messages, which name no operator: bool(x) (torch.Tensor.__bool__) raises them too.
  WICK_CHECK(self.numel() != 0, RuntimeError, "Boolean value of Tensor with no values is ambiguous");
  WICK_CHECK(self.numel() == 1, RuntimeError, "Boolean value of Tensor with more than one value is ambiguous");
  return self.ne(0).item<bool>();
}

// Note [Resizing a tensor] (dispatch/ops/tensor.ops).
Tensor resize__kernel(const Tensor& self, IntArrayRef size) {
  WICK_CHECK(!self.requires_grad(), RuntimeError, "cannot resize variables that require grad");
  for (const std::int64_t d : size) WICK_CHECK(d >= 0, RuntimeError, "numel: integer multiplication overflow");
  (void)checked_numel(size);
  TensorImpl* impl = self.impl();
  const std::size_t item = itemsize(self.dtype());
  const std::size_t need = storage_nbytes(size, contiguous_strides(size), self.storage_offset(), item);
  const std::size_t have = impl->storage()->nbytes();
  if (need > have) {
    const auto held = static_cast<std::int64_t>(have);
    const Tensor old_bytes = make_view(self, {held}, {1}, 0, ScalarType::kUInt8);
    impl->set_storage(Storage::make(need, self.device()));
    make_view(self, {held}, {1}, 0, ScalarType::kUInt8).copy_(old_bytes);
  }
  if (!self.sizes().equals(size)) impl->set_geometry(size, contiguous_strides(size), self.storage_offset());
  self.bump_version();  // a write, for the aliasing rules (PyTorch's resize_ leaves _version as it is)
  return self;
}

Tensor resize_as__kernel(const Tensor& self, const Tensor& the_template) {
  return resize__kernel(self, the_template.sizes());
}

// PyTorch's deprecated out-of-place resize (its autograd Function Resize):
// a reshape that keeps the number of elements.
Tensor resized(const Tensor& self, IntArrayRef sizes) {
  const std::int64_t n = checked_numel(sizes);
  if (n != self.numel()) {
    const auto joined = [](IntArrayRef dims) {  // Python's 'x'.join(...)
      std::string text;
      for (const std::int64_t d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
      return text;
    };
    throw RuntimeError(detail::str_cat("requested resize to ", joined(sizes), " (", n,
                                       " elements in total), but the given tensor has a size of ",
                                       joined(self.sizes()), " (", self.numel(),
                                       " elements). autograd's resize can only change the shape of a given tensor, "
                                       "while preserving the number of elements. "));
  }
  return self.reshape(sizes);
}

Tensor resize_kernel(const Tensor& self, IntArrayRef sizes) {
  static std::once_flag warned;
  std::call_once(warned, [] { logging::warn("non-inplace resize is deprecated"); });
  return resized(self, sizes);
}

Tensor resize_as_kernel(const Tensor& self, const Tensor& tensor) {
  static std::once_flag warned;
  std::call_once(warned, [] { logging::warn("non-inplace resize_as is deprecated"); });
  return resized(self, tensor.sizes());
}

}  // namespace

void register_composite_shape(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("flatten", &flatten_kernel)
      .impl("pixel_shuffle", &pixel_shuffle_kernel)
      .impl("pixel_unshuffle", &pixel_unshuffle_kernel)
      .impl("channel_shuffle", &channel_shuffle_kernel)
      .impl("native_channel_shuffle", &native_channel_shuffle_kernel)
      .impl("unflatten", &unflatten_kernel)
      .impl("stack", &stack_kernel)
      .impl("split", &split_kernel)
      .impl("split_with_sizes", &split_with_sizes_kernel)
      .impl("chunk", &chunk_kernel)
      .impl("roll", &roll_kernel)
      .impl("zeros_like", &zeros_like_kernel)
      .impl("ones_like", &ones_like_kernel)
      .impl("full_like", &full_like_kernel)
      .impl("broadcast_to", &broadcast_to_kernel)
      .impl("movedim", &movedim_kernel)
      .impl("unbind", &unbind_kernel)
      .impl("hstack", &hstack_kernel)
      .impl("vstack", &vstack_kernel)
      .impl("dstack", &dstack_kernel)
      .impl("column_stack", &column_stack_kernel)
      .impl("diff", &diff_kernel)
      .impl("ravel", &ravel_kernel)
      .impl("fliplr", &fliplr_kernel)
      .impl("flipud", &flipud_kernel)
      .impl("rot90", &rot90_kernel)
      .impl("tile", &tile_kernel)
      .impl("repeat_interleave.Tensor", &repeat_interleave_counts_kernel)
      .impl("repeat_interleave", &repeat_interleave_kernel)
      .impl("repeat_interleave.self_int", &repeat_interleave_int_kernel)
      .impl("tensor_split", &tensor_split_kernel)
      .impl("tensor_split.indices", &tensor_split_indices_kernel)
      .impl("tensor_split.tensor_indices_or_sections", &tensor_split_by_kernel)
      .impl("hsplit", &hsplit_kernel)
      .impl("hsplit.array", &hsplit_array_kernel)
      .impl("vsplit", &vsplit_kernel)
      .impl("vsplit.array", &vsplit_array_kernel)
      .impl("dsplit", &dsplit_kernel)
      .impl("dsplit.array", &dsplit_array_kernel)
      .impl("select_scatter", &select_scatter_kernel)
      .impl("slice_scatter", &slice_scatter_kernel)
      .impl("diagonal_scatter", &diagonal_scatter_kernel)
      .impl("is_same_size", &is_same_size_kernel)
      .impl("is_nonzero", &is_nonzero_kernel)
      .impl("as_strided", &as_strided_kernel)
      .impl("as_strided_scatter", &as_strided_scatter_kernel);
  auto tensor = std::make_unique<Library>("torch.Tensor", kComposite);
  tensor->impl("expand_as", &expand_as_kernel)
      .impl("view_as", &view_as_kernel)
      .impl("fill_diagonal_", &fill_diagonal_kernel)
      .impl("repeat", &repeat_kernel)
      .impl("sum_to_size", &sum_to_size_kernel)
      .impl("as_strided", &as_strided_kernel)
      .impl("unfold", &unfold_kernel)
      .impl("resize_", &resize__kernel)
      .impl("resize_as_", &resize_as__kernel)
      .impl("resize", &resize_kernel)
      .impl("resize_as", &resize_as_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(tensor));
}

}  // namespace wick
