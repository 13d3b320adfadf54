// backends/cuda/copy_ops.cpp - Tensor.copy_ on a device, between devices, and between host and device.
/// \file
/// Note [Host-device copies]
/// The bytes cross the bus once, as a plain block: the side that is not
/// contiguous or not in the destination's dtype is first converted on its
/// own device (the CPU kernels on the host, `copy_within_device` on the GPU)
/// into a contiguous staging tensor of the destination's shape and dtype.
/// The transfer is queued on the current stream of the CUDA side and waited
/// for, so the host sees finished values (wick/cuda.h, Note [Streams and host
/// reads]). With `non_blocking`, nothing is waited for when the host side is
/// page-locked memory (wick::cuda::pin_memory) used in place, no staging
/// tensor on the host being involved: the caller then synchronises before
/// reading a device-to-host result or reusing a host-to-device source.
#include <cuda_runtime_api.h>

#include <wick/meta.h>
#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"

namespace wick::cuda_backend {
namespace {

constexpr const char* kOp = "torch.Tensor.copy_";

bool is_pinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

std::size_t nbytes_of(const Tensor& t) { return static_cast<std::size_t>(t.numel()) * itemsize(t.dtype()); }

bool shares_memory(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.storage().get() == b.storage().get();
}

// `src` seen with `dst`'s shape (the meta function checked that it broadcasts).
Tensor expanded_to(const Tensor& dst, const Tensor& src) {
  return src.sizes().equals(dst.sizes()) ? src : src.expand(dst.sizes());
}

// A contiguous copy of `src` (already of dst's shape) in `dtype` on src's
// CUDA device, or `src` itself when it already is one.
Tensor staged_on_device(const Tensor& src, ScalarType dtype) {
  if (src.is_contiguous() && src.dtype() == dtype) return src;
  Tensor out = make_empty(src.sizes(), dtype, src.device());
  copy_within_device(out, src);
  return out;
}

// The same on the host, with the CPU kernels.
Tensor staged_on_host(const Tensor& src, ScalarType dtype) {
  if (src.is_contiguous() && src.dtype() == dtype) return src;
  Tensor out = make_empty(src.sizes(), dtype, Device());
  out.copy_(src);
  return out;
}

void host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const Tensor host = staged_on_host(src, dst.dtype());
  const bool in_place = dst.is_contiguous();
  const Tensor target = in_place ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device());
  const DeviceGuard guard(dst.device());
  cudaStream_t stream = current_stream();
  check_cuda(cudaMemcpyAsync(target.data_ptr(), host.data_ptr(), nbytes_of(dst), cudaMemcpyHostToDevice, stream), kOp);
  if (!in_place) copy_within_device(dst, target);
  // The host memory must outlive the transfer: a staging tensor about to be
  // freed, or a pageable source the caller may reuse, is waited for.
  const bool async = non_blocking && host.storage().get() == src.storage().get() && is_pinned(host.data_ptr());
  if (!async) check_cuda(cudaStreamSynchronize(stream), kOp);
}

void device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const DeviceGuard guard(src.device());
  const Tensor dev = staged_on_device(src, dst.dtype());
  const bool in_place = dst.is_contiguous();
  const Tensor target = in_place ? dst : make_empty(dst.sizes(), dst.dtype(), Device());
  cudaStream_t stream = current_stream();
  check_cuda(cudaMemcpyAsync(target.data_ptr(), dev.data_ptr(), nbytes_of(dst), cudaMemcpyDeviceToHost, stream), kOp);
  const bool async = non_blocking && in_place && is_pinned(dst.data_ptr());
  if (!async) check_cuda(cudaStreamSynchronize(stream), kOp);
  if (!in_place) {
    Tensor d = dst;
    d.copy_(target);
  }
}

void device_to_device(const Tensor& dst, const Tensor& src) {
  if (dst.device() == src.device()) {
    const DeviceGuard guard(dst.device());
    // x.copy_(x.t()) must not read what it already wrote.
    copy_within_device(dst, shares_memory(dst, src) ? staged_on_device(src.clone(), src.dtype()) : src);
    return;
  }
  // Another GPU: a contiguous block goes across (peer access or staged by
  // the driver), ordered after the source's work by a wait on its stream.
  Tensor block;
  {
    const DeviceGuard guard(src.device());
    block = staged_on_device(src, dst.dtype());
    check_cuda(cudaStreamSynchronize(current_stream()), kOp);
  }
  const DeviceGuard guard(dst.device());
  const bool in_place = dst.is_contiguous();
  const Tensor target = in_place ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device());
  check_cuda(cudaMemcpyPeerAsync(target.data_ptr(), dst.device().index(), block.data_ptr(), src.device().index(),
                                 nbytes_of(dst), current_stream()),
             kOp);
  if (!in_place) copy_within_device(dst, target);
  // `block` is freed on the source device's stream: wait so it is not reused early.
  check_cuda(cudaStreamSynchronize(current_stream()), kOp);
}

}  // namespace

void copy_(const InplaceMeta&, const Tensor& self, const Tensor& src_in, bool non_blocking) {
  const Tensor src = expanded_to(self, src_in);
  if (self.numel() > 0) {
    const bool dst_cuda = self.device().type() == DeviceType::kCUDA;
    const bool src_cuda = src.device().type() == DeviceType::kCUDA;
    WICK_CHECK((dst_cuda || self.device().is_cpu()) && (src_cuda || src.device().is_cpu()), RuntimeError, kOp,
               ": cannot copy from ", src.device().str(), " to ", self.device().str(), " on the CUDA backend");
    if (dst_cuda && src_cuda) {
      device_to_device(self, src);
    } else if (dst_cuda) {
      host_to_device(self, src, non_blocking);
    } else {
      device_to_host(self, src, non_blocking);
    }
  }
}

}  // namespace wick::cuda_backend
