// dispatch/composite/lstsq_ops.cpp - torch.linalg.lstsq: least-squares solutions through the pseudo-inverse.
/// \file
/// Note [Least squares through the pseudo-inverse]
/// lstsq(A, B) is the X of least ||A X - B|| and, among those, of least
/// ||X||: pinv(A) B, with the singular values of A at or below rcond times
/// the largest counted as zero (rcond defaults to the dtype's epsilon times
/// max(m, n)). That is what LAPACK's SVD drivers (gelsd, gelss) compute, and
/// gelsy (PyTorch's CPU default, a rank-revealing QR) agrees with it up to
/// rounding: it finds the same rank with the same rcond on all but nearly
/// degenerate matrices. The driver decides which of PyTorch's other results
/// are filled, as in PyTorch: `rank` for gelsy, gelsd and gelss;
/// `singular_values` for gelsd and gelss; `residuals` (the squared column
/// norms of A X - B) for every driver but gelsy, when m > n and every matrix
/// has full rank. The gradients come from pinv's and matmul's.
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq_kernel(const Tensor& a, const Tensor& b, std::optional<double> rcond,
                                                        std::optional<std::string_view> driver_arg) {
  const char* op = "torch.linalg.lstsq";
  WICK_CHECK(a.dim() >= 2, RuntimeError, op, ": input must have at least 2 dimensions.");
  WICK_CHECK(b.dim() >= 1, RuntimeError, op, ": other must have at least 1 dimension.");
  const ScalarType t = a.dtype();
  const bool supported = t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kComplex64 ||
                         t == ScalarType::kComplex128;
  // PyTorch refuses other dtypes where it first needs the dtype's epsilon
  // (the default rcond), else in its kernel.
  WICK_CHECK(supported || rcond.has_value(), RuntimeError, op,
             ": This function doesn't handle types other than float and double");
  WICK_CHECK(b.dtype() == t, RuntimeError, op, ": Expected input and other to have the same dtype, but got input's dtype ",
             type_title(t), " and other's dtype ", type_title(b.dtype()));
  WICK_CHECK(a.dim() >= b.dim() && a.dim() - b.dim() <= 1, RuntimeError, op,
             ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const bool vector = b.dim() == a.dim() - 1;
  const I64 m = a.sizes()[static_cast<std::size_t>(a.dim() - 2)];
  const I64 n = a.sizes().back();
  if (vector) {
    WICK_CHECK(m == b.sizes().back(), RuntimeError, op, ": input.size(-2) should match other.size(-1)");
  } else {
    WICK_CHECK(m == b.sizes()[static_cast<std::size_t>(b.dim() - 2)], RuntimeError, op,
               ": input.size(-2) should match other.size(-2)");
  }
  WICK_CHECK(a.device() == b.device(), RuntimeError, op,
             ": Expected all tensors to be on the same device, but found at least two devices, ", a.device().str(),
             " and ", b.device().str(), "!");
  if (!supported) throw_not_implemented_for("linalg_lstsq_cpu", t);
  const bool cuda = a.device().type() == DeviceType::kCUDA;
  const std::string driver(driver_arg.value_or(cuda ? "gels" : "gelsy"));
  WICK_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss", RuntimeError, op,
             ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  WICK_CHECK(!cuda || driver == "gels", RuntimeError, op, ": `driver` other than `gels` is not supported on CUDA");
  const ScalarType real = to_real_dtype(t);
  const double eps = real == ScalarType::kFloat64 ? std::numeric_limits<double>::epsilon()
                                                  : static_cast<double>(std::numeric_limits<float>::epsilon());
  const double tol = rcond.value_or(eps * static_cast<double>(std::max(m, n)));
  const Tensor rhs = vector ? b.unsqueeze(-1) : b;
  const Tensor solution_full = matmul(linalg::pinv(a, std::nullopt, tol), rhs);
  const Tensor solution = vector ? solution_full.squeeze(-1) : solution_full;
  const I64 none[] = {0};
  const bool ranked = driver != "gels";
  const bool spectral = driver == "gelsd" || driver == "gelss";
  Tensor rank = ranked ? linalg::matrix_rank(a, std::nullopt, tol) : empty(IntArrayRef(none, 1), ScalarType::kInt64, a.device());
  Tensor singular_values = spectral ? linalg::svdvals(a) : empty(IntArrayRef(none, 1), real, a.device());
  Tensor residuals = empty(IntArrayRef(none, 1), real, a.device());
  if (driver != "gelsy" && m > n) {
    // gels assumes full rank; the others report residuals only when every
    // matrix has it (a meta tensor's shapes are those of full rank).
    const bool full_rank = !ranked || a.device().is_meta() || all(eq(rank, Scalar(n))).item<bool>();
    if (full_rank) {
      const Tensor error = sub(matmul(a, solution_full), rhs);
      const I64 rows[] = {-2};
      const Tensor magnitude = abs(error);
      residuals = sum(mul(magnitude, magnitude), IntArrayRef(rows, 1));
    }
  }
  return {solution, residuals, rank, singular_values};
}

}  // namespace

void register_lstsq_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto linalg = std::make_unique<Library>("torch.linalg", DispatchKey::kCompositeImplicit);
  linalg->impl("lstsq", &lstsq_kernel);
  out.push_back(std::move(linalg));
}

}  // namespace wick
