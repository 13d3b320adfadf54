// backends/cuda/cast_kernels.cu - device code: launch_cast, dtype conversion between every pair of real dtypes.
/// \file
/// Note [Conversions on the device]
/// A value converts as wick::convert converts it on the host (wick/dtype.h),
/// which is PyTorch's x86 result where C++ leaves a conversion undefined (a
/// GPU's own cvt instructions saturate instead, and would disagree with the
/// CPU backend):
/// - to bool: v != 0 (NaN is true);
/// - a float to int32 or int64: the value truncated toward zero when it is
///   in range, else (NaN, infinities, out of range) the type's lowest value;
/// - a float to uint8, int8 or int16: through int32 as above, then the low
///   bits (300.7 -> uint8 44; 1e10 -> 0);
/// - to float16 or bfloat16: through float32, rounded to nearest even (a
///   double is rounded twice, as in PyTorch); from them: exact.
/// Each (destination, source) pair is one launch_map; the rows path is left
/// out of the pairs that change the dtype (Note [Elementwise loop paths]),
/// to keep the ~100 pairs' compile time down.
#include <cstdint>
#include <type_traits>

#include "elementwise_kernels.h"
#include "elementwise_loops.cuh"

namespace wick::cuda_backend {
namespace {

using loops::from_opmath;
using loops::is_reduced_v;
using loops::launch_map;
using loops::to_opmath;
using loops::visit_type;

template <typename D, typename S>
__device__ __forceinline__ D convert_value(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (is_reduced_v<S>) {
    return convert_value<D>(to_opmath(v));
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (is_reduced_v<D>) {
    return from_opmath<D>(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    using Wide = std::conditional_t<(sizeof(D) < 4), std::int32_t, D>;
    constexpr S kLow = sizeof(Wide) == 4 ? S(-2147483648.0) : S(-9223372036854775808.0);  // exact in S
    const Wide w = v >= kLow && v < -kLow ? static_cast<Wide>(v) : static_cast<Wide>(kLow);
    return static_cast<D>(w);
  } else {
    return static_cast<D>(v);
  }
}

template <typename D, typename S>
struct CastFn {
  static constexpr bool kRowsPath = std::is_same_v<D, S>;
  __device__ __forceinline__ D operator()(S v) const { return convert_value<D>(v); }
};

}  // namespace

void launch_cast(DType dst, DType src, const ElementwiseArgs& args, cudaStream_t stream) {
  visit_type(dst, [&](auto dst_tag) {
    using D = decltype(dst_tag);
    visit_type(src, [&](auto src_tag) {
      using S = decltype(src_tag);
      launch_map<D, S>(CastFn<D, S>{}, args, stream);
    });
  });
}

}  // namespace wick::cuda_backend
