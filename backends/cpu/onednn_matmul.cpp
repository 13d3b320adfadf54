// backends/cpu/onednn_matmul.cpp - bfloat16 matrix products through oneDNN's matmul primitive.
/// \file
/// Note [bfloat16 matrix products on oneDNN] in onednn.h. Each call builds
/// the primitive from the operands' sizes and strides; oneDNN's primitive
/// cache makes a repeated shape cost a lookup.
#include "onednn.h"

#ifdef WICK_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace wick::cpu {

#ifdef WICK_HAVE_ONEDNN
namespace {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory::desc desc_of(const Tensor& t) {
  const dnnl::memory::dims sizes(t.sizes().begin(), t.sizes().end());
  const dnnl::memory::dims strides(t.strides().begin(), t.strides().end());
  return {sizes, dnnl::memory::data_type::bf16, strides};
}

// `out` holds [B, n, p] contiguously, whatever its own dims (mm's is [n, p]).
dnnl::memory::desc output_desc(std::int64_t batches, std::int64_t n, std::int64_t p) {
  return {{batches, n, p}, dnnl::memory::data_type::bf16, dnnl::memory::format_tag::abc};
}

}  // namespace

bool onednn_matmul(const Tensor& a, const Tensor& m, const Tensor& out, double alpha, double beta) {
  if (a.dtype() != ScalarType::kBFloat16 || a.size(2) == 0) return false;
  try {
    const dnnl::memory::desc src = desc_of(a);
    const dnnl::memory::desc weights = desc_of(m);
    const dnnl::memory::desc dst = output_desc(a.size(0), a.size(1), m.size(2));
    dnnl::primitive_attr attr;
    if (alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(alpha)});
    if (beta != 0.0) {
      dnnl::post_ops ops;
      ops.append_sum(static_cast<float>(beta));
      attr.set_post_ops(ops);
    }
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), attr, cpu_engine());
    dnnl::stream stream(cpu_engine());
    dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, dnnl::memory(src, cpu_engine(), a.data_ptr())},
                                      {DNNL_ARG_WEIGHTS, dnnl::memory(weights, cpu_engine(), m.data_ptr())},
                                      {DNNL_ARG_DST, dnnl::memory(dst, cpu_engine(), out.data_ptr())}});
    stream.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;  // no kernel or layout for this case
  }
}

#else

bool onednn_matmul(const Tensor& /*a*/, const Tensor& /*m*/, const Tensor& /*out*/, double /*alpha*/,
                   double /*beta*/) {
  return false;
}

#endif

}  // namespace wick::cpu
