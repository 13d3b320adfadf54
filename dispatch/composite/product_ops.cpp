// dispatch/composite/product_ops.cpp - baddbmm, addbmm, addmv, addr, tensordot, einsum, chain_matmul, cdist, diag, diag_embed, tril_indices, triu_indices, linalg.vander.
/// \file
/// Products and matrix layouts composed from mm, bmm, addmm, mul, where and
/// the shape operators, so that they run on every backend with those
/// kernels and get their gradients from their parts. Checks and messages
/// are PyTorch 1.13's.
#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"
#include "wick/value.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using T = const Tensor&;

// --- beta * self + alpha * product ------------------------------------------------------------------------

// beta * self + alpha * product, self expanded to the product's shape; beta 0
// ignores self (its NaNs and infinities too), as BLAS does.
Tensor scaled_sum(T self, T product, const Scalar& beta, const Scalar& alpha) {
  const ScalarType t = product.dtype();
  const Tensor scaled = mul(product, scalar_in_dtype(alpha, t));
  if (scalar_in_dtype(beta, t).to<std::complex<double>>() == std::complex<double>(0.0)) return scaled;
  const Tensor base = self.expand(product.sizes());
  return add(mul(base.dtype() == t ? base : base.to(t), scalar_in_dtype(beta, t)), scaled);
}

void check_3d(T batch1, T batch2) {
  WICK_CHECK(batch1.dim() == 3, RuntimeError, "batch1 must be a 3D tensor");
  WICK_CHECK(batch2.dim() == 3, RuntimeError, "batch2 must be a 3D tensor");
}

// The dtypes PyTorch's CPU batched products refuse, by the kernel's name.
void check_product_dtype(const char* kernel, ScalarType t) {
  WICK_CHECK(t != ScalarType::kBool && t != ScalarType::kFloat16, RuntimeError, "\"", kernel,
             "\" not implemented for '", type_title(t), "'");
}

void check_same_dtype(T expected, T found) {
  WICK_CHECK(expected.dtype() == found.dtype(), RuntimeError, "expected scalar type ", type_title(expected.dtype()),
             " but found ", type_title(found.dtype()));
}

Tensor baddbmm_kernel(T self, T batch1, T batch2, const Scalar& beta, const Scalar& alpha) {
  check_3d(batch1, batch2);
  WICK_CHECK(batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2), RuntimeError,
             "Expected size for first two dimensions of batch2 tensor to be: [", batch1.size(0), ", ", batch1.size(2),
             "] but got: [", batch2.size(0), ", ", batch2.size(1), "].");
  check_same_dtype(batch1, batch2);
  check_product_dtype("baddbmm", batch1.dtype());
  return scaled_sum(self, bmm(batch1, batch2), beta, alpha);
}

// The sum over the batch of batch1[i] @ batch2[i] is one product: batch1's
// matrices side by side times batch2's stacked.
Tensor addbmm_kernel(T self, T batch1, T batch2, const Scalar& beta, const Scalar& alpha) {
  check_3d(batch1, batch2);
  WICK_CHECK(batch1.size(0) == batch2.size(0), RuntimeError,
             "batch1 and batch2 must have same number of batches, got ", batch1.size(0), " and ", batch2.size(0));
  WICK_CHECK(batch1.size(2) == batch2.size(1), RuntimeError, "Incompatible matrix sizes for bmm (", batch1.size(1),
             "x", batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  const I64 n = batch1.size(1);
  const I64 p = batch2.size(2);
  const I64 inner = checked_mul(batch1.size(0), batch1.size(2), "torch.addbmm");
  const Tensor side_by_side = batch1.transpose(0, 1).reshape({n, inner});
  const Tensor stacked = batch2.reshape({inner, p});
  const I64 shape[] = {n, p};
  (void)scalar_in_dtype(beta, batch1.dtype());  // PyTorch's range checks of the numbers
  (void)scalar_in_dtype(alpha, batch1.dtype());
  return addmm(self.expand(IntArrayRef(shape, 2)), side_by_side, stacked, beta, alpha);
}

Tensor addmv_kernel(T self, T mat, T vec, const Scalar& beta, const Scalar& alpha) {
  WICK_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, RuntimeError,
             "vector + matrix @ vector expected, got ", self.dim(), ", ", mat.dim(), ", ", vec.dim());
  WICK_CHECK(mat.size(1) == vec.size(0) && (self.dim() == 0 || self.numel() == 1 || self.size(0) == mat.size(0)),
             RuntimeError, "size mismatch, got ", self.dim() == 0 ? 1 : self.size(0), ", ", mat.size(0), "x",
             mat.size(1), ",", vec.size(0));
  check_same_dtype(mat, vec);
  WICK_CHECK(mat.dtype() != ScalarType::kBool && mat.dtype() != ScalarType::kFloat16, RuntimeError,
             "\"addmv_impl_cpu\" not implemented for '", type_title(mat.dtype()), "'");
  // mv, not addmm: autocast leaves mv alone on the CPU, as PyTorch's addmv.
  return scaled_sum(self.dim() == 1 ? self : self.reshape({-1}), mv(mat, vec), beta, alpha);
}

// PyTorch's checks of addr's numbers against the result's dtype.
void check_addr_scalar(ScalarType t, const Scalar& s, const char* name) {
  WICK_CHECK(!s.is_bool() || t == ScalarType::kBool, RuntimeError, "Boolean ", name,
             " only supported for Boolean results.");
  WICK_CHECK(!is_integral(t, true) || (!s.is_floating() && !s.is_complex()), RuntimeError,
             "For integral input tensors, argument ", name, " must not be a floating point number.");
}

Tensor addr_kernel(T self, T vec1, T vec2, const Scalar& beta, const Scalar& alpha) {
  WICK_CHECK(vec1.dim() == 1, RuntimeError, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  WICK_CHECK(vec2.dim() == 1, RuntimeError, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  const ScalarType t = promote_types(self.dtype(), promote_types(vec1.dtype(), vec2.dtype()));
  check_addr_scalar(t, beta, "beta");
  check_addr_scalar(t, alpha, "alpha");
  const I64 shape[] = {vec1.size(0), vec2.size(0)};
  const Tensor base = self.expand(IntArrayRef(shape, 2));
  const Tensor product = outer(vec1.to(t), vec2.to(t));
  if (t == ScalarType::kBool) {
    // Logical: (beta and self) or (alpha and vec1 vec2^T).
    const Tensor scaled = alpha.to<bool>() ? product : zeros(IntArrayRef(shape, 2), t, product.device());
    return beta.to<bool>() ? logical_or(base, scaled) : scaled;
  }
  return scaled_sum(base.to(t), product, beta, alpha);
}

// --- tensordot ------------------------------------------------------------------------------------------

// a's dims `dims_a` contracted with b's `dims_b`: a's free dims to the
// front, b's to the back, one matrix product.
Tensor contract(T a, T b, const std::vector<I64>& dims_a, const std::vector<I64>& dims_b) {
  WICK_CHECK(dims_a.size() == dims_b.size(), RuntimeError, "both dimension lists should have same length");
  std::vector<bool> in_a(static_cast<std::size_t>(a.dim()), false);
  std::vector<bool> in_b(static_cast<std::size_t>(b.dim()), false);
  DimVector perm_a;
  DimVector perm_b;
  DimVector shape;
  I64 inner = 1;
  for (std::size_t i = 0; i < dims_a.size(); ++i) {
    const I64 da = wrap_dim(dims_a[i], a.dim());
    const I64 db = wrap_dim(dims_b[i], b.dim());
    WICK_CHECK(a.size(da) == b.size(db), RuntimeError, "contracted dimensions need to match, but first has size ",
               a.size(da), " in dim ", dims_a[i], " and second has size ", b.size(db), " in dim ", dims_b[i]);
    in_a[static_cast<std::size_t>(da)] = true;
    in_b[static_cast<std::size_t>(db)] = true;
    inner = checked_mul(inner, a.size(da), "torch.tensordot");
  }
  I64 rows = 1;
  I64 cols = 1;
  for (I64 d = 0; d < a.dim(); ++d) {
    if (in_a[static_cast<std::size_t>(d)]) continue;
    perm_a.push_back(d);
    shape.push_back(a.size(d));
    rows = checked_mul(rows, a.size(d), "torch.tensordot");
  }
  for (std::size_t i = 0; i < dims_a.size(); ++i) {
    perm_a.push_back(wrap_dim(dims_a[i], a.dim()));
    perm_b.push_back(wrap_dim(dims_b[i], b.dim()));
  }
  for (I64 d = 0; d < b.dim(); ++d) {
    if (in_b[static_cast<std::size_t>(d)]) continue;
    perm_b.push_back(d);
    shape.push_back(b.size(d));
    cols = checked_mul(cols, b.size(d), "torch.tensordot");
  }
  const Tensor lhs = permute(a, perm_a).reshape({rows, inner});
  const Tensor rhs = permute(b, perm_b).reshape({inner, cols});
  return mm(lhs, rhs).reshape(shape);
}

// A list of dims from one half of dims=[dims_a, dims_b].
std::vector<I64> dim_list(const Value& v, const char* name, int position) {
  if (v.is_int_list()) return v.to_int_list();
  std::vector<I64> dims;
  const bool listed = v.is_list() || v.is_tuple();
  if (listed) {
    for (const Value& item : v.items()) {
      if (!item.is_int()) {
        dims.clear();
        break;
      }
      dims.push_back(item.to_int());
    }
  }
  WICK_CHECK(listed && dims.size() == v.items().size(), TypeError, "tensordot(): argument '", name, "' (position ",
             position, ") must be tuple of ints, not ", v.type_name());
  return dims;
}

Tensor tensordot_kernel(T a, T b, const Value& dims) {
  check_same_dtype(a, b);
  if (const Tensor* t = dims.tensor_if(); t != nullptr && t->numel() == 1) {
    return tensordot_kernel(a, b, Value(t->item().to<std::int64_t>()));
  }
  if (dims.is_int()) {
    const I64 k = dims.to_int();
    WICK_CHECK(k >= 0, RuntimeError, "tensordot expects dims >= 0, but got dims=", k);
    std::vector<I64> dims_a;
    std::vector<I64> dims_b;
    for (I64 i = 0; i < k; ++i) {
      dims_a.push_back(i - k);
      dims_b.push_back(i);
    }
    return contract(a, b, dims_a, dims_b);
  }
  if (const Tensor* t = dims.tensor_if(); t != nullptr) {
    // A [2, k] tensor: its rows are the two lists.
    WICK_CHECK(t->dim() == 2 && t->size(0) == 2, RuntimeError, "tensordot expects dims to be a [2, k] tensor");
    const Tensor rows = t->to(ScalarType::kInt64).contiguous().to(Device());
    const auto* first = static_cast<const I64*>(rows.data_ptr());
    const auto* second = static_cast<const I64*>(rows.select(0, 1).data_ptr());
    const auto k = static_cast<std::size_t>(t->size(1));
    return contract(a, b, std::vector<I64>(first, std::next(first, static_cast<std::ptrdiff_t>(k))),
                    std::vector<I64>(second, std::next(second, static_cast<std::ptrdiff_t>(k))));
  }
  if (dims.is_int_list()) {
    // [1, 0]: two ints where Python's tensordot wants two lists.
    WICK_CHECK(dims.to_int_list().size() != 2, TypeError,
               "tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int");
  }
  WICK_CHECK((dims.is_list() || dims.is_tuple()) && dims.items().size() == 2, TypeError,
             "tensordot(): dims must be an int, a pair of lists of dims, or a tensor, not ", dims.type_name());
  return contract(a, b, dim_list(dims.items()[0], "dims_self", 3), dim_list(dims.items()[1], "dims_other", 4));
}

// --- cdist ----------------------------------------------------------------------------------------------

// |x|^2 - 2 x.y + |y|^2 as one product of padded rows, clamped at 1e-30
// before the square root, as PyTorch's Euclidean shortcut.
Tensor euclidean_by_product(T x1, T x2) {
  const I64 last[] = {-1};
  const Tensor n1 = sum(mul(x1, x1), IntArrayRef(last), true);
  const Tensor n2 = sum(mul(x2, x2), IntArrayRef(last), true);
  const Tensor lhs = cat({mul(x1, -2), n1, ones_like(n1)}, -1);
  const Tensor rhs = cat({x2, ones_like(n2), n2}, -1);
  return sqrt(clamp_min(matmul(lhs, rhs.transpose(-2, -1)), 1e-30));
}

Tensor cdist_kernel(T x1, T x2, double p, std::string_view compute_mode) {
  WICK_CHECK(compute_mode == "use_mm_for_euclid_dist_if_necessary" || compute_mode == "use_mm_for_euclid_dist" ||
                 compute_mode == "donot_use_mm_for_euclid_dist",
             ValueError, compute_mode, " is not a valid value for compute_mode");
  WICK_CHECK(x1.dim() >= 2, RuntimeError, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  WICK_CHECK(x2.dim() >= 2, RuntimeError, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  WICK_CHECK(x1.size(-1) == x2.size(-1), RuntimeError, "X1 and X2 must have the same number of columns. X1: ",
             x1.size(-1), " X2: ", x2.size(-1));
  WICK_CHECK(is_floating(x1.dtype()), RuntimeError, "cdist only supports floating-point dtypes, X1 got: ",
             type_title(x1.dtype()));
  WICK_CHECK(is_floating(x2.dtype()), RuntimeError, "cdist only supports floating-point dtypes, X2 got: ",
             type_title(x2.dtype()));
  WICK_CHECK(p >= 0, RuntimeError, "cdist only supports non-negative p values");
  check_same_dtype(x1, x2);
  const I64 rows1 = x1.size(-2);
  const I64 rows2 = x2.size(-2);
  const bool by_product = p == 2.0 && (compute_mode == "use_mm_for_euclid_dist" ||
                                       (compute_mode == "use_mm_for_euclid_dist_if_necessary" && (rows1 > 25 || rows2 > 25)));
  // PyTorch's distance kernel has neither 16-bit float; its matrix-product
  // form has bfloat16 (the CPU's addmm), not float16.
  const ScalarType t = x1.dtype();
  WICK_CHECK(t != ScalarType::kFloat16 || !by_product, RuntimeError, "\"addmm_impl_cpu_\" not implemented for 'Half'");
  WICK_CHECK(by_product || (t != ScalarType::kFloat16 && t != ScalarType::kBFloat16), RuntimeError,
             "\"cdist\" not implemented for '", type_title(t), "'");
  // The batch dims broadcast.
  DimVector batch = broadcast_shapes(IntArrayRef(x1.sizes().data(), static_cast<std::size_t>(x1.dim() - 2)),
                                     IntArrayRef(x2.sizes().data(), static_cast<std::size_t>(x2.dim() - 2)),
                                     "torch.cdist");
  DimVector s1 = batch;
  s1.push_back(rows1);
  s1.push_back(x1.size(-1));
  DimVector s2 = batch;
  s2.push_back(rows2);
  s2.push_back(x2.size(-1));
  const Tensor a = x1.expand(s1);
  const Tensor b = x2.expand(s2);
  if (by_product) return euclidean_by_product(a, b);
  const Tensor difference = sub(a.unsqueeze(-2), b.unsqueeze(-3));
  const I64 last[] = {-1};
  return linalg::vector_norm(difference, p, IntArrayRef(last));
}

// --- diagonals and triangles ------------------------------------------------------------------------------

// The last dim of self on the diagonal `offset` of the matrices over dims
// dim1 (rows) and dim2 (columns) of the result; zeros elsewhere (NaNs too).
Tensor diag_embed_kernel(T self, I64 offset, I64 dim1, I64 dim2) {
  const I64 rank = self.dim() + 1;
  const I64 d1 = wrap_dim(dim1, rank);
  const I64 d2 = wrap_dim(dim2, rank);
  WICK_CHECK(d1 != d2, RuntimeError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const I64 n = self.size(-1);
  const I64 shift = offset < 0 ? checked_mul(offset, -1, "torch.diag_embed") : offset;
  const Tensor mask = eye(n, std::nullopt, ScalarType::kBool, self.device());
  Tensor square = where(mask, self.unsqueeze(-1), zeros({}, self.dtype(), self.device()));
  // Rows i, columns i + offset: pad columns before (rows after) for a
  // positive offset, the other way round for a negative one.
  const I64 pad[] = {offset > 0 ? shift : 0, offset < 0 ? shift : 0, offset < 0 ? shift : 0, offset > 0 ? shift : 0};
  if (shift != 0) square = constant_pad_nd(square, IntArrayRef(pad, 4), 0);
  const I64 from[] = {rank - 2, rank - 1};
  const I64 to[] = {d1, d2};
  return movedim(square, IntArrayRef(from, 2), IntArrayRef(to, 2));
}

Tensor diag_kernel(T self, I64 diagonal) {
  WICK_CHECK(self.dim() == 1 || self.dim() == 2, RuntimeError, "matrix or a vector expected");
  if (self.dim() == 1) return diag_embed_kernel(self, diagonal, 0, 1);
  return wick::diagonal(self, diagonal, 0, 1).clone();
}

// The number of positions (r, c) of a row x col matrix with c - r <= offset:
// row r holds clamp(r + offset + 1, 0, col) of them.
I64 lower_count(I64 row, I64 col, I64 offset, const char* op) {
  if (row == 0 || col == 0) return 0;
  offset = std::clamp(offset, -row, col - 1);  // beyond these every row is empty or full
  const I64 first = std::max<I64>(0, -offset);                       // the first row holding any
  const I64 full = std::clamp<I64>(col - offset - 1, first, row);    // the first full row
  const I64 partial = full - first;                                   // rows first .. full - 1
  // sum over r in [first, full) of r + offset + 1: an arithmetic series.
  const I64 head = first + offset + 1;
  const I64 series = checked_add(checked_mul(partial, head, op),
                                 partial % 2 == 0 ? checked_mul(partial / 2, partial - 1, op)
                                                  : checked_mul(partial, (partial - 1) / 2, op),
                                 op);
  return checked_add(series, checked_mul(row - full, col, op), op);
}

// The positions (row, col) of a row x col matrix with col - row <= offset
// (lower) or >= offset (upper), row by row: a [2, N] tensor, filled on the
// host (its size is known from the arithmetic above, so a meta result needs
// no values).
Tensor triangle_indices(const char* name, I64 row, I64 col, I64 offset, bool lower, std::optional<ScalarType> dtype,
                        std::optional<Device> device) {
  WICK_CHECK(row >= 0, RuntimeError, "row must be non-negative, got", row);
  WICK_CHECK(col >= 0, RuntimeError, "col must be non-negative, got", col);
  const ScalarType t = dtype.value_or(ScalarType::kInt64);
  WICK_CHECK(t == ScalarType::kInt64 || t == ScalarType::kInt32, RuntimeError, "\"", name, "\" not implemented for '",
             type_title(t), "'");
  const I64 cells = checked_mul(row, col, name);
  // Upper: c - r >= offset is the complement of c - r <= offset - 1.
  const I64 below = std::max(offset, -row);
  const I64 count = lower ? lower_count(row, col, offset, name) : cells - lower_count(row, col, below - 1, name);
  const Device on = device.value_or(Device());
  if (on.is_meta()) return empty({2, count}, t, on);
  const Tensor host = empty({2, count}, ScalarType::kInt64, Device());
  auto* rows = static_cast<I64*>(host.data_ptr());
  I64* cols = rows + count;  // NOLINT: the second row of a [2, count] tensor
  I64 written = 0;
  for (I64 r = 0; r < row && written < count; ++r) {
    // Row r's columns: [0, r + offset] (lower) or [r + offset, col) (upper), within [0, col).
    const I64 edge = std::clamp<I64>(std::clamp<I64>(offset, -row - 1, col) + r, -1, col);
    const I64 begin = lower ? 0 : std::max<I64>(edge, 0);
    const I64 end = lower ? std::min<I64>(edge + 1, col) : col;
    for (I64 c = begin; c < end; ++c, ++written) {
      rows[written] = r;
      cols[written] = c;
    }
  }
  return host.to(t).to(on);
}

Tensor tril_indices_kernel(I64 row, I64 col, I64 offset, std::optional<ScalarType> dtype,
                           std::optional<Device> device) {
  return triangle_indices("tril_indices", row, col, offset, true, dtype, device);
}

Tensor triu_indices_kernel(I64 row, I64 col, I64 offset, std::optional<ScalarType> dtype,
                           std::optional<Device> device) {
  return triangle_indices("triu_indices", row, col, offset, false, dtype, device);
}

// Columns x^0 .. x^(N-1): the running products of [1, x, x, ...].
Tensor vander_kernel(T x, std::optional<I64> n) {
  const ScalarType t = x.dtype();
  WICK_CHECK(t != ScalarType::kBool && t != ScalarType::kFloat16 && t != ScalarType::kBFloat16, RuntimeError,
             "linalg.vander supports floating point, complex, and integer tensors, but got ", type_title(t));
  const I64 columns = n.value_or(x.dim() == 0 ? 1 : x.size(-1));
  WICK_CHECK(columns > 1, RuntimeError, "N must be greater than 1.");
  const ScalarType out = is_integral(t, false) ? ScalarType::kInt64 : t;
  DimVector shape(x.sizes());
  shape.push_back(columns - 1);
  const Tensor column = x.to(out).unsqueeze(-1);
  const Tensor first = ones_like(column);
  return cumprod(cat({first, column.expand(shape)}, -1), -1);
}

// self flattened, as a diagonal of a square matrix (a 0-dim self as one element).
Tensor diagflat_kernel(T self, I64 offset) { return diag(self.reshape({-1}), offset); }

// --- einsum ---------------------------------------------------------------------------------------------
//
// Note [einsum]
// The equation is parsed into one term per operand and an output term. Each
// subscript is a label 0..51 ('A'-'Z', then 'a'-'z': ASCII order, which is
// the implicit output's order). Every operand is brought to one common
// layout of slots, the output's slots first (the ellipsis block where the
// output puts it), then the summed labels, then the ellipsis block when the
// output leaves it out; a repeated label becomes a diagonal and a missing
// slot a dim of size 1. The operands are then combined left to right: each
// pair sums, before it multiplies, the slots that no later operand has
// (size 1 there), by bmm when both have them and by a plain product
// otherwise, as PyTorch's sumproduct_pair does.

constexpr int kLabelCount = 52;
constexpr int kEllipsis = -1;  // a slot of the ellipsis block: kEllipsis - k for its k-th dim

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  return -1;
}

char label_char(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26)); }

// One term: its labels in order, kEllipsis standing for "...".
struct EinsumTerm {
  std::vector<int> labels;
  bool has_ellipsis = false;
};

// Parses equation[begin, end); `who` is "operand 3" or "output" for messages.
EinsumTerm parse_term(std::string_view eq, std::size_t begin, std::size_t end, const std::string& who) {
  EinsumTerm term;
  for (std::size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      WICK_CHECK(!term.has_ellipsis, RuntimeError, "einsum(): found '.' for ", who,
                 who == "output" ? " but an ellipsis (...) was already found" : " for which an ellipsis was already found");
      WICK_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', RuntimeError, "einsum(): found '.' for ", who,
                 " that is not part of any ellipsis");
      term.labels.push_back(kEllipsis);
      term.has_ellipsis = true;
      i += 2;
      continue;
    }
    const int label = label_of(c);
    WICK_CHECK(label >= 0, RuntimeError, "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
    term.labels.push_back(label);
  }
  return term;
}

// The slot of each dim of an operand: a label, or kEllipsis - k for the k-th
// dim of the common ellipsis block (operands with fewer ellipsis dims align
// to its right, as broadcasting does).
std::vector<int> operand_slots(const EinsumTerm& term, I64 dims, I64 ellipsis_dims) {
  std::vector<int> slots;
  const I64 covered = dims - (static_cast<I64>(term.labels.size()) - (term.has_ellipsis ? 1 : 0));
  for (const int label : term.labels) {
    if (label != kEllipsis) {
      slots.push_back(label);
      continue;
    }
    for (I64 k = ellipsis_dims - covered; k < ellipsis_dims; ++k) slots.push_back(kEllipsis - static_cast<int>(k));
  }
  return slots;
}

// Sums `a` and `b` over the slots in `summed` and multiplies them: both in
// the common layout (same rank), the result too, size 1 at the summed slots.
Tensor sum_product_pair(Tensor a, Tensor b, const std::vector<I64>& summed) {
  std::vector<I64> contracted;
  for (const I64 d : summed) {
    const bool in_a = a.size(d) != 1;
    const bool in_b = b.size(d) != 1;
    if (in_a && in_b) {
      contracted.push_back(d);
    } else if (in_a) {
      a = sum(a, IntArrayRef({d}), /*keepdim=*/true);
    } else if (in_b) {
      b = sum(b, IntArrayRef({d}), /*keepdim=*/true);
    }
  }
  if (contracted.empty()) return mul(a, b);
  const I64 rank = a.dim();
  std::vector<bool> is_summed(static_cast<std::size_t>(rank), false);
  for (const I64 d : summed) is_summed[static_cast<std::size_t>(d)] = true;
  std::vector<I64> batch;
  std::vector<I64> left;
  std::vector<I64> right;
  std::vector<I64> ones;  // size 1 in both, summed or not
  for (I64 d = 0; d < rank; ++d) {
    const bool in_a = a.size(d) != 1;
    const bool in_b = b.size(d) != 1;
    if (is_summed[static_cast<std::size_t>(d)] && in_a && in_b) continue;
    if (in_a && in_b) {
      batch.push_back(d);
    } else if (in_a) {
      left.push_back(d);
    } else if (in_b) {
      right.push_back(d);
    } else {
      ones.push_back(d);
    }
  }
  const auto extent = [](const Tensor& t, const std::vector<I64>& dims) {
    I64 n = 1;
    for (const I64 d : dims) n = checked_mul(n, t.size(d), "torch.einsum");
    return n;
  };
  const std::vector<I64>& contracted_dims = contracted;
  const I64 nb = extent(a, batch);
  const I64 nl = extent(a, left);
  const I64 ns = extent(a, contracted_dims);
  const I64 nr = extent(b, right);
  std::vector<I64> order_a = batch;  // batch, left, contracted, then a's size-1 dims
  order_a.insert(order_a.end(), left.begin(), left.end());
  order_a.insert(order_a.end(), contracted_dims.begin(), contracted_dims.end());
  order_a.insert(order_a.end(), right.begin(), right.end());
  order_a.insert(order_a.end(), ones.begin(), ones.end());
  std::vector<I64> order_b = batch;  // batch, contracted, right, then b's size-1 dims
  order_b.insert(order_b.end(), contracted_dims.begin(), contracted_dims.end());
  order_b.insert(order_b.end(), right.begin(), right.end());
  order_b.insert(order_b.end(), left.begin(), left.end());
  order_b.insert(order_b.end(), ones.begin(), ones.end());
  const Tensor product = bmm(a.permute(IntArrayRef(order_a)).reshape({nb, nl, ns}),
                             b.permute(IntArrayRef(order_b)).reshape({nb, ns, nr}));
  // Back to the common layout: batch, left, right, then 1 for the rest.
  std::vector<I64> order = batch;
  order.insert(order.end(), left.begin(), left.end());
  order.insert(order.end(), right.begin(), right.end());
  std::vector<I64> shape;
  for (const I64 d : batch) shape.push_back(a.size(d));
  for (const I64 d : left) shape.push_back(a.size(d));
  for (const I64 d : right) shape.push_back(b.size(d));
  for (const I64 d : contracted_dims) order.push_back(d);
  order.insert(order.end(), ones.begin(), ones.end());
  shape.resize(static_cast<std::size_t>(rank), 1);
  return product.reshape(IntArrayRef(shape)).permute(IntArrayRef(inverse_permutation(IntArrayRef(order))));
}

Tensor einsum_kernel(std::string_view equation, const std::vector<Tensor>& operands) {
  WICK_CHECK(!operands.empty(), ValueError,
             "einsum(): must specify the equation string and at least one operand, or at least one operand and its "
             "subscripts list");
  const std::size_t arrow = equation.find("->");
  const std::size_t lhs_end = arrow == std::string_view::npos ? equation.size() : arrow;
  std::vector<EinsumTerm> terms;
  for (std::size_t begin = 0;;) {
    const std::size_t comma = equation.find(',', begin);
    const std::size_t end = comma == std::string_view::npos || comma > lhs_end ? lhs_end : comma;
    WICK_CHECK(terms.size() < operands.size(), RuntimeError,
               "einsum(): fewer operands were provided than specified in the equation");
    terms.push_back(parse_term(equation, begin, end, detail::str_cat("operand ", terms.size())));
    if (end == lhs_end) break;
    begin = end + 1;
  }
  WICK_CHECK(terms.size() == operands.size(), RuntimeError,
             "einsum(): more operands were provided than specified in the equation");

  // Each operand's dims against its term; the ellipsis block's length.
  I64 ellipsis_dims = 0;
  std::vector<int> occurrences(kLabelCount, 0);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const I64 dims = operands[i].dim();
    const I64 named = static_cast<I64>(terms[i].labels.size()) - (terms[i].has_ellipsis ? 1 : 0);
    WICK_CHECK(terms[i].has_ellipsis || named == dims, RuntimeError, "einsum(): the number of subscripts in the equation (",
               named, ") does not match the number of dimensions (", dims, ") for operand ", i, " and no ellipsis was given");
    WICK_CHECK(!terms[i].has_ellipsis || named <= dims, RuntimeError, "einsum(): the number of subscripts in the equation (",
               named, ") is more than the number of dimensions (", dims, ") for operand ", i);
    if (terms[i].has_ellipsis) ellipsis_dims = std::max(ellipsis_dims, dims - named);
    for (const int label : terms[i].labels)
      if (label != kEllipsis) ++occurrences[static_cast<std::size_t>(label)];
  }

  // The output's slots: given after "->", else the ellipsis block and the
  // labels seen once, in label order.
  std::vector<int> out_slots;
  bool out_has_ellipsis = false;
  const auto push_ellipsis = [&] {
    for (I64 k = 0; k < ellipsis_dims; ++k) out_slots.push_back(kEllipsis - static_cast<int>(k));
    out_has_ellipsis = true;
  };
  std::vector<bool> in_output(kLabelCount, false);
  if (arrow != std::string_view::npos) {
    const EinsumTerm out = parse_term(equation, arrow + 2, equation.size(), "output");
    for (const int label : out.labels) {
      if (label == kEllipsis) {
        push_ellipsis();
        continue;
      }
      const auto l = static_cast<std::size_t>(label);
      WICK_CHECK(occurrences[l] > 0, RuntimeError, "einsum(): output subscript ", label_char(label),
                 " does not appear in the equation for any input operand");
      WICK_CHECK(!in_output[l], RuntimeError, "einsum(): output subscript ", label_char(label),
                 " appears more than once in the output");
      in_output[l] = true;
      out_slots.push_back(label);
    }
  } else {
    push_ellipsis();
    for (int label = 0; label < kLabelCount; ++label) {
      if (occurrences[static_cast<std::size_t>(label)] != 1) continue;
      in_output[static_cast<std::size_t>(label)] = true;
      out_slots.push_back(label);
    }
  }
  std::vector<int> slots = out_slots;
  for (int label = 0; label < kLabelCount; ++label) {
    const auto l = static_cast<std::size_t>(label);
    if (occurrences[l] > 0 && !in_output[l]) slots.push_back(label);
  }
  if (!out_has_ellipsis)
    for (I64 k = 0; k < ellipsis_dims; ++k) slots.push_back(kEllipsis - static_cast<int>(k));
  const auto rank = static_cast<I64>(slots.size());

  // Each operand in the common layout; the sizes seen per slot.
  std::vector<Tensor> laid_out;
  DimVector seen(static_cast<std::size_t>(rank), 1);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    Tensor t = operands[i];
    std::vector<int> dim_slots = operand_slots(terms[i], t.dim(), ellipsis_dims);
    // A repeated label: its diagonal, which diagonal() puts last.
    for (bool again = true; again;) {
      again = false;
      for (std::size_t p = 0; p < dim_slots.size() && !again; ++p) {
        for (std::size_t q = p + 1; q < dim_slots.size() && !again; ++q) {
          if (dim_slots[p] != dim_slots[q]) continue;
          const I64 sp = t.size(static_cast<I64>(p));
          const I64 sq = t.size(static_cast<I64>(q));
          WICK_CHECK(sp == sq, RuntimeError, "einsum(): subscript ", label_char(dim_slots[p]), " is repeated for operand ",
                     i, " but the sizes don't match, ", sq, " != ", sp);
          t = t.diagonal(0, static_cast<I64>(p), static_cast<I64>(q));
          const int slot = dim_slots[p];
          dim_slots.erase(dim_slots.begin() + static_cast<std::ptrdiff_t>(q));
          dim_slots.erase(dim_slots.begin() + static_cast<std::ptrdiff_t>(p));
          dim_slots.push_back(slot);
          again = true;
        }
      }
    }
    // Permute into slot order, then a size-1 dim for each slot it lacks.
    DimVector order;
    DimVector shape(static_cast<std::size_t>(rank), 1);
    for (I64 s = 0; s < rank; ++s) {
      const auto it = std::find(dim_slots.begin(), dim_slots.end(), slots[static_cast<std::size_t>(s)]);
      if (it == dim_slots.end()) continue;
      const auto d = static_cast<I64>(it - dim_slots.begin());
      order.push_back(d);
      const I64 size = t.size(d);
      I64& prev = seen[static_cast<std::size_t>(s)];
      if (size != 1 && prev != 1 && size != prev) {
        const int slot = slots[static_cast<std::size_t>(s)];
        if (slot >= 0)
          throw RuntimeError(detail::str_cat("einsum(): subscript ", label_char(slot), " has size ", size, " for operand ", i,
                                             " which does not broadcast with previously seen size ", prev));
        throw RuntimeError(detail::str_cat("einsum(): dimension ", d, " covered by ellipsis in operand ", i, "has size ",
                                           size, " which does not broadcast with previously seen ellipsis with size ",
                                           prev, " for the respective dimension"));
      }
      if (size != 1) prev = size;
      shape[static_cast<std::size_t>(s)] = size;
    }
    laid_out.push_back(t.permute(IntArrayRef(order)).reshape(IntArrayRef(shape)));
  }

  // Combine left to right, summing each slot once no later operand has it.
  const auto n_out = static_cast<I64>(out_slots.size());
  Tensor result = laid_out[0];
  std::vector<bool> done(static_cast<std::size_t>(rank), false);
  for (std::size_t i = 1; i < laid_out.size(); ++i) {
    std::vector<I64> summed;
    for (I64 s = n_out; s < rank; ++s) {
      bool later = false;
      for (std::size_t j = i + 1; j < laid_out.size(); ++j) later = later || laid_out[j].size(s) != 1;
      if (!later && !done[static_cast<std::size_t>(s)]) {
        summed.push_back(s);
        done[static_cast<std::size_t>(s)] = true;
      }
    }
    result = sum_product_pair(result, laid_out[i], summed);
  }
  DimVector rest;
  for (I64 s = n_out; s < rank; ++s)
    if (!done[static_cast<std::size_t>(s)] && result.size(s) != 1) rest.push_back(s);
  if (!rest.empty()) result = sum(result, IntArrayRef(rest), /*keepdim=*/true);
  DimVector out_shape;
  for (I64 s = 0; s < n_out; ++s) out_shape.push_back(result.size(s));
  return result.reshape(IntArrayRef(out_shape));
}

// --- chain_matmul ----------------------------------------------------------------------------------------

Tensor chain_matmul_kernel(const std::vector<Tensor>& matrices) {
  WICK_CHECK(!matrices.empty(), RuntimeError, "chain_matmul(): Expected one or more matrices");
  for (const Tensor& m : matrices)
    WICK_CHECK(m.dim() == 2, RuntimeError, "Tensor dimension is ", m.dim(), ", expected 2 instead.");
  if (matrices.size() == 1) return clone(matrices[0]);
  return linalg::multi_dot(matrices);
}

}  // namespace

void register_product_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("baddbmm", &baddbmm_kernel)
      .impl("addbmm", &addbmm_kernel)
      .impl("addmv", &addmv_kernel)
      .impl("addr", &addr_kernel)
      .impl("tensordot", &tensordot_kernel)
      .impl("cdist", &cdist_kernel)
      .impl("diag", &diag_kernel)
      .impl("diag_embed", &diag_embed_kernel)
      .impl("diagflat", &diagflat_kernel)
      .impl("tril_indices", &tril_indices_kernel)
      .impl("triu_indices", &triu_indices_kernel)
      .impl("einsum", &einsum_kernel)
      .impl("chain_matmul", &chain_matmul_kernel);
  out.push_back(std::move(torch));
  auto linalg = std::make_unique<Library>("torch.linalg", DispatchKey::kCompositeImplicit);
  linalg->impl("vander", &vander_kernel);
  out.push_back(std::move(linalg));
}

}  // namespace wick
