// backends/cuda/sort_ops.cpp - argsort (sort, median, mode, unique and msort build on it), topk_indices (topk and
// kthvalue), searchsorted and bucketize on CUDA.
/// \file
/// The CPU backend's results (backends/cpu/sort_ops.cpp) and refusals, with
/// the kernels in sort_kernels.cu (Note [Sorting by radix]). argsort sorts
/// the rows of a contiguous copy with `dim` moved last, then writes the
/// positions back along `dim`.
#include <cstdint>
#include <optional>
#include <string_view>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_index.h>
#include <wick/tensor_util.h>

#include <wick/gen/torch_kernels.h>
#include "cuda_common.h"
#include "cuda_ops.h"
#include "elementwise_host.h"
#include "sort_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

}  // namespace

namespace {

// The first k positions of each line along m.dim in the stable order,
// written to out: argsort's rows, narrowed.
void first_positions(const DimMeta& m, const Tensor& out, const Tensor& self, I64 k, bool descending) {
  const char* op = "argsort";
  const DType dtype = to_dtype(self.dtype(), "sorting_kernel_method_name");
  if (self.numel() == 0 || k == 0) return;
  const DeviceGuard guard(out.device());
  const I64 last = self.dim() - 1;
  const Tensor rows = self.transpose(m.dim, last).contiguous();
  Tensor positions = make_empty(rows.sizes(), ScalarType::kInt64, out.device());
  ArgsortArgs args;
  args.src = rows.data_ptr();
  args.out = static_cast<I64*>(positions.data_ptr());
  args.dtype = dtype;
  args.n = self.sizes()[m.dim];
  args.lines = self.numel() / args.n;
  args.descending = descending;
  const std::size_t bytes = argsort_workspace_bytes(args);
  const Tensor workspace = make_empty({static_cast<I64>(bytes)}, ScalarType::kUInt8, out.device());
  check_cuda(launch_argsort(args, workspace.data_ptr(), current_stream()), op);
  copy_within_device(out.transpose(m.dim, last), positions.narrow(last, 0, k));
}

}  // namespace

void argsort(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, bool descending) {
  if (self.dim() == 0) {  // one element, of any dtype (the CPU answers before it looks at the dtype)
    Tensor(out).zero_();
    return;
  }
  first_positions(m, out, self, self.sizes()[m.dim], descending);
}

// topk and kthvalue on CUDA: the first k of argsort's order (a selection
// kernel of their own is left to do).
void topk_indices(const DimMeta& m, const Tensor& out, const Tensor& self, I64 k, I64 /*dim*/, bool largest) {
  first_positions(m, out, self, k, largest);
}

void searchsorted(const SearchsortedMeta& m, const Tensor& out, const Tensor& sorted_sequence, const Tensor& self,
                  bool /*out_int32*/, bool /*right*/, std::optional<std::string_view> /*side*/,
                  const std::optional<Tensor>& sorter) {
  const char* op = "searchsorted";
  const Device device = sorter ? cuda_device_of(op, {&out, &sorted_sequence, &self, &*sorter})
                               : cuda_device_of(op, {&out, &sorted_sequence, &self});
  const DeviceGuard guard(device);
  const I64 width = sorted_sequence.sizes()[sorted_sequence.dim() - 1];  // boundaries per row
  std::optional<Tensor> order;
  if (sorter) {  // every sorter index inside its row, checked before anything is written (as on the CPU)
    order = as_int64(*sorter);
    if (const auto bad = find_bad(op, *order, 0, width)) {
      WICK_CHECK(false, IndexError, "torch.searchsorted(): sorter index ", bad->second,
                 " is out of range for boundaries of ", width, " elements along their last dimension");
    }
  }
  // Every real dtype but bool, as the CPU's search.
  if (m.compute == ScalarType::kBool) throw_not_implemented_for("searchsorted_out_cuda", m.compute);
  const DType dtype = to_dtype(m.compute, "searchsorted_out_cuda");
  if (self.numel() == 0) return;
  const Tensor bounds = on_device(sorted_sequence, device).to(m.compute).contiguous();
  const Tensor values = on_device(self, device, m.compute).to(m.compute).contiguous();
  SearchArgs args;
  args.boundaries = bounds.data_ptr();
  args.values = values.data_ptr();
  args.order = order ? static_cast<const I64*>(order->data_ptr()) : nullptr;
  args.dtype = dtype;
  args.count = self.numel();
  args.width = width;
  args.per_row = self.dim() == 0 ? 1 : self.sizes()[self.dim() - 1];
  args.one_row = sorted_sequence.dim() == 1;
  args.right = m.right;
  args.out_int32 = out.dtype() == ScalarType::kInt32;
  Tensor result = out.is_contiguous() ? out : make_empty(out.sizes(), out.dtype(), device);
  args.out = result.data_ptr();
  check_cuda(launch_searchsorted(args, current_stream()), op);
  if (!result.is_same(out)) copy_within_device(out, result);
}

void bucketize(const SearchsortedMeta& m, const Tensor& out, const Tensor& self, const Tensor& boundaries,
               bool out_int32, bool right) {
  searchsorted(m, out, boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

}  // namespace wick::cuda_backend
