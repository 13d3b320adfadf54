// backends/cuda/dnn_ops.cpp - 2-D convolution (cuDNN), pooling and softmax on CUDA.
/// \file
/// The computations of the `aten` operators of convolution and pooling and
/// of torch.softmax / log_softmax, whose meta functions
/// (dispatch/ops/meta_conv.cpp, meta_nn.cpp) checked the arguments and gave
/// the geometry, for the CPU backend too. Convolutions run through cuDNN on
/// contiguous NCHW tensors; softmax and pooling (whose host side is
/// backends/cuda/pool_ops.cpp) are own kernels (dnn_kernels.cu), whose
/// window and NaN rules must match the CPU kernels exactly.
///
/// Note [cuDNN algorithm cache]
/// A convolution's algorithm is picked once per configuration: the _v7
/// heuristics (no trial runs) are asked the first time a (direction,
/// device, dtype, shapes, stride, padding, dilation, groups) key is seen,
/// and the first algorithm they rank that succeeds is cached with its
/// workspace size. float32 runs in TF32 tensor-op math when
/// wick::backends::cudnn_allow_tf32() (PyTorch's default, Note [TF32] in
/// wick/backends.h), else in FMA math, with algorithms without tensor ops;
/// the switch is part of the key. In benchmark mode (Note [cuDNN benchmark
/// mode] in wick/backends.h) the first call of a key runs cuDNN's Find
/// instead, on the call's own tensors with a workspace of up to
/// kFindWorkspace bytes, and keeps the fastest algorithm that succeeded;
/// the mode is part of the key too. A call made while its stream is being
/// captured into a CUDA graph cannot run trials, so it takes the heuristic
/// choice.
/// The workspace is a wick tensor from the caching allocator, freed on
/// return: the allocator reuses a block only in stream order, so the
/// queued convolution still owns it until it has run.
///
/// Note [16-bit convolutions]
/// float16 and bfloat16 convolutions (forward and both backwards) run
/// through cuDNN with CUDNN_DATA_HALF / CUDNN_DATA_BFLOAT16 tensors and
/// float32 compute (the convolution descriptor's type), in tensor-op math,
/// as PyTorch runs them; alpha and beta are floats. The TF32 switch
/// concerns float32 only. Integer convolutions, which the CPU backend
/// computes, are refused as PyTorch refuses them on CUDA
/// (`"slow_conv2d_cuda" not implemented for 'Long'`); so are complex ones.
///
/// Note [cuDNN handles]
/// As cuBLAS's (blas_ops.cpp): one per device, made lazily, never
/// destroyed, locked while a call sets its stream and queues work.
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <wick/backends.h>
#include <wick/meta_nn.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "dnn_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

void check_cudnn(cudnnStatus_t status, const char* op) {
  WICK_CHECK(status == CUDNN_STATUS_SUCCESS, RuntimeError, op, ": cuDNN error: ", cudnnGetErrorString(status));
}

// --- handles (Note [cuDNN handles]) --------------------------------------------------------------

constexpr int kMaxDevices = 64;

struct HandleSlot {
  std::mutex mutex;
  cudnnHandle_t handle = nullptr;
};

HandleSlot& handle_slot(int device) {
  static std::array<HandleSlot, kMaxDevices> slots;
  WICK_CHECK(device >= 0 && device < kMaxDevices, RuntimeError, "cuDNN: device index ", device, " out of range");
  return slots[static_cast<std::size_t>(device)];
}

class DnnCall final {
 public:
  DnnCall(Device device, const char* op) : slot_(handle_slot(device.index())), lock_(slot_.mutex) {
    if (slot_.handle == nullptr) check_cudnn(cudnnCreate(&slot_.handle), op);
    check_cudnn(cudnnSetStream(slot_.handle, current_stream()), op);
  }
  [[nodiscard]] cudnnHandle_t handle() const { return slot_.handle; }

 private:
  HandleSlot& slot_;
  std::lock_guard<std::mutex> lock_;
};

// RAII descriptors.
class TensorDesc final {
 public:
  explicit TensorDesc(const char* op) { check_cudnn(cudnnCreateTensorDescriptor(&d_), op); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d_); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  [[nodiscard]] cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class FilterDesc final {
 public:
  explicit FilterDesc(const char* op) { check_cudnn(cudnnCreateFilterDescriptor(&d_), op); }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d_); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  [[nodiscard]] cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc final {
 public:
  explicit ConvDesc(const char* op) { check_cudnn(cudnnCreateConvolutionDescriptor(&d_), op); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d_); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  [[nodiscard]] cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

// --- convolution ---------------------------------------------------------------------------------

int as_int(const char* op, I64 v) {
  WICK_CHECK(v >= 0 && v <= INT_MAX, RuntimeError, op, ": size or parameter ", v, " is too large for cuDNN");
  return static_cast<int>(v);
}

// The data type of a convolution's tensors (Note [16-bit convolutions]).
cudnnDataType_t cudnn_type(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat32:
      return CUDNN_DATA_FLOAT;
    case ScalarType::kFloat64:
      return CUDNN_DATA_DOUBLE;
    case ScalarType::kFloat16:
      return CUDNN_DATA_HALF;
    case ScalarType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      throw_not_implemented_for("slow_conv2d_cuda", t);
  }
}

// The type a convolution computes in: float32 for the 16-bit floats.
cudnnDataType_t compute_type(ScalarType t) { return is_reduced_floating(t) ? CUDNN_DATA_FLOAT : cudnn_type(t); }

// Whether algorithms with tensor ops may run: 16-bit floats always, float32
// where TF32 is allowed (Note [TF32]), float64 never.
bool tensor_ops_allowed(ScalarType t) {
  return is_reduced_floating(t) || (t == ScalarType::kFloat32 && backends::cudnn_allow_tf32());
}

// The descriptors of one convolution: x [n, c, h, w], w [o, c/g, kh, kw], y [n, o, oh, ow].
struct ConvDescs {
  explicit ConvDescs(const char* op) : x(op), y(op), w(op), conv(op) {}
  TensorDesc x;
  TensorDesc y;
  FilterDesc w;
  ConvDesc conv;
};

void set_descs(const char* op, const Conv2dMeta& g, ScalarType dtype, ConvDescs& d) {
  const cudnnDataType_t t = cudnn_type(dtype);
  check_cudnn(cudnnSetTensor4dDescriptor(d.x.get(), CUDNN_TENSOR_NCHW, t, as_int(op, g.n), as_int(op, g.c),
                                         as_int(op, g.h), as_int(op, g.w)),
              op);
  check_cudnn(cudnnSetTensor4dDescriptor(d.y.get(), CUDNN_TENSOR_NCHW, t, as_int(op, g.n), as_int(op, g.o),
                                         as_int(op, g.oh), as_int(op, g.ow)),
              op);
  check_cudnn(cudnnSetFilter4dDescriptor(d.w.get(), t, CUDNN_TENSOR_NCHW, as_int(op, g.o), as_int(op, g.c / g.groups),
                                         as_int(op, g.kh), as_int(op, g.kw)),
              op);
  check_cudnn(cudnnSetConvolution2dDescriptor(d.conv.get(), as_int(op, g.ph), as_int(op, g.pw), as_int(op, g.sh),
                                              as_int(op, g.sw), as_int(op, g.dh), as_int(op, g.dw),
                                              CUDNN_CROSS_CORRELATION, compute_type(dtype)),
              op);
  check_cudnn(cudnnSetConvolutionGroupCount(d.conv.get(), as_int(op, g.groups)), op);
  // Note [cuDNN algorithm cache]: TF32 for float32 only where allowed;
  // tensor ops for the 16-bit floats (Note [16-bit convolutions]).
  const cudnnMathType_t math = is_reduced_floating(dtype)      ? CUDNN_TENSOR_OP_MATH
                               : dtype != ScalarType::kFloat32 ? CUDNN_DEFAULT_MATH
                               : backends::cudnn_allow_tf32()  ? CUDNN_TENSOR_OP_MATH
                                                               : CUDNN_FMA_MATH;
  check_cudnn(cudnnSetConvolutionMathType(d.conv.get(), math), op);
}

enum class ConvKind : I64 { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

struct AlgoChoice {
  int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  std::size_t workspace = 0;
};

using AlgoKey = std::array<I64, 19>;
constexpr std::size_t kTf32Slot = 17;
constexpr std::size_t kBenchmarkSlot = 18;
constexpr std::size_t kFindWorkspace = std::size_t{512} << 20;

AlgoKey algo_key(ConvKind kind, Device device, ScalarType dtype, const Conv2dMeta& g, bool benchmark) {
  return {static_cast<I64>(kind),
          device.index(),
          static_cast<I64>(dtype),
          g.n,
          g.c,
          g.h,
          g.w,
          g.o,
          g.kh,
          g.kw,
          g.sh,
          g.sw,
          g.ph,
          g.pw,
          g.dh,
          g.dw,
          g.groups,
          tensor_ops_allowed(dtype) ? 1 : 0,
          benchmark ? 1 : 0};
}

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<AlgoKey, AlgoChoice>& algo_cache() {
  static std::map<AlgoKey, AlgoChoice> cache;
  return cache;
}

bool tensor_op_math(cudnnMathType_t m) {
  return m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// The first heuristically ranked algorithm that succeeds (without tensor ops
// unless `tensor_ops`); `fallback` when none does.
template <typename Perf, typename Algo>
Algo pick(const std::vector<Perf>& perf, int returned, Algo fallback, bool tensor_ops) {
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perf[static_cast<std::size_t>(i)];
    if (p.status == CUDNN_STATUS_SUCCESS && (tensor_ops || !tensor_op_math(p.mathType))) return p.algo;
  }
  return fallback;
}

// The operands of a convolution call, for Find's trial runs: x, w and y
// as cuDNN names them (the output of the call's direction is written).
struct ConvBuffers {
  void* x;
  void* w;
  void* y;
};

// A workspace of `bytes` from the caching allocator (undefined for none).
Tensor workspace(std::size_t bytes, Device device) {
  if (bytes == 0) return {};
  return make_empty({static_cast<I64>((bytes + 7) / 8)}, ScalarType::kInt64, device);
}

// Find's workspace: kFindWorkspace bytes, or none where the device has not
// that much free (the trials then skip the algorithms that need one).
Tensor find_workspace(Device device, std::size_t& bytes) {
  try {
    bytes = kFindWorkspace;
    return workspace(bytes, device);
  } catch (const Error&) {
    bytes = 0;
    return {};
  }
}

// Whether the current stream is being captured into a CUDA graph.
bool capturing() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(current_stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone;
}

AlgoChoice choose_algo(const char* op, ConvKind kind, cudnnHandle_t h, const ConvDescs& d, const AlgoKey& key,
                       Device device, const ConvBuffers& b) {
  {
    const std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = algo_cache().find(key);
    if (it != algo_cache().end()) return it->second;
  }
  AlgoChoice c;
  int returned = 0;
  const bool tensor_ops = key[kTf32Slot] != 0;  // 16-bit floats, or float32 with TF32 allowed
  const bool find = key[kBenchmarkSlot] != 0;
  std::size_t ws_bytes = 0;
  const Tensor ws = find ? find_workspace(device, ws_bytes) : Tensor();
  void* wsp = ws.defined() ? ws.data_ptr() : nullptr;
  if (kind == ConvKind::kForward) {
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    const int n = static_cast<int>(perf.size());
    if (find) {
      check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(h, d.x.get(), b.x, d.w.get(), b.w, d.conv.get(), d.y.get(),
                                                         b.y, n, &returned, perf.data(), wsp, ws_bytes),
                  op);
    } else {
      check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), n, &returned,
                                                         perf.data()),
                  op);
    }
    const auto algo = pick(perf, returned, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, tensor_ops);
    check_cudnn(
        cudnnGetConvolutionForwardWorkspaceSize(h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), algo, &c.workspace),
        op);
    c.algo = static_cast<int>(algo);
  } else if (kind == ConvKind::kBackwardData) {
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    const int n = static_cast<int>(perf.size());
    if (find) {
      check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w.get(), b.w, d.y.get(), b.y, d.conv.get(),
                                                              d.x.get(), b.x, n, &returned, perf.data(), wsp, ws_bytes),
                  op);
    } else {
      check_cudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), n,
                                                              &returned, perf.data()),
                  op);
    }
    const auto algo = pick(perf, returned, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, tensor_ops);
    check_cudnn(cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), algo,
                                                             &c.workspace),
                op);
    c.algo = static_cast<int>(algo);
  } else {
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    const int n = static_cast<int>(perf.size());
    if (find) {
      check_cudnn(
          cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.x.get(), b.x, d.y.get(), b.y, d.conv.get(), d.w.get(), b.w,
                                                        n, &returned, perf.data(), wsp, ws_bytes),
          op);
    } else {
      check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), n,
                                                                &returned, perf.data()),
                  op);
    }
    const auto algo = pick(perf, returned, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, tensor_ops);
    check_cudnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), algo,
                                                               &c.workspace),
                op);
    c.algo = static_cast<int>(algo);
  }
  const std::lock_guard<std::mutex> lock(cache_mutex());
  algo_cache().emplace(key, c);
  return c;
}

// The cache key of a call: benchmark mode unless the stream is being captured.
AlgoKey call_key(ConvKind kind, Device device, ScalarType dtype, const Conv2dMeta& g) {
  return algo_key(kind, device, dtype, g, backends::cudnn_benchmark() && !capturing());
}

// alpha = 1 and beta = 0 (or 1) in the data's precision, as cuDNN wants them.
struct Scales {
  explicit Scales(ScalarType t) : is_double(t == ScalarType::kFloat64) {}
  [[nodiscard]] const void* one() const { return is_double ? static_cast<const void*>(&d1) : &f1; }
  [[nodiscard]] const void* zero() const { return is_double ? static_cast<const void*>(&d0) : &f0; }
  bool is_double;
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
};

Tensor contiguous_on(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

}  // namespace

void convolution2d(const Conv2dMeta& g, const Tensor& out, const Tensor& input, const Tensor& weight,
                   const std::optional<Tensor>& bias, IntArrayRef /*stride*/, IntArrayRef /*padding*/,
                   IntArrayRef /*dilation*/, I64 /*groups*/) {
  const char* op = "aten.convolution2d";
  (void)cudnn_type(input.dtype());  // refuses a dtype cuDNN does not convolve
  if (out.numel() == 0) return;
  const Device device = out.device();
  const DeviceGuard guard(device);
  Tensor target = out;
  if (g.c == 0) {  // no input channels: the output is the bias
    target.fill_(0);
    if (bias) target.add_(bias->reshape({1, g.o, 1, 1}));
    return;
  }
  const Tensor x = contiguous_on(input);
  const Tensor w = contiguous_on(weight);
  ConvDescs d(op);
  set_descs(op, g, input.dtype(), d);
  const Scales s(input.dtype());
  const DnnCall call(device, op);
  const AlgoChoice c =
      choose_algo(op, ConvKind::kForward, call.handle(), d, call_key(ConvKind::kForward, device, input.dtype(), g),
                  device, {x.data_ptr(), w.data_ptr(), out.data_ptr()});
  const Tensor ws = workspace(c.workspace, device);
  check_cudnn(
      cudnnConvolutionForward(call.handle(), s.one(), d.x.get(), x.data_ptr(), d.w.get(), w.data_ptr(), d.conv.get(),
                              static_cast<cudnnConvolutionFwdAlgo_t>(c.algo), ws.defined() ? ws.data_ptr() : nullptr,
                              c.workspace, s.zero(), d.y.get(), out.data_ptr()),
      op);
  if (bias) {
    const Tensor b = contiguous_on(*bias);
    TensorDesc bd(op);
    check_cudnn(
        cudnnSetTensor4dDescriptor(bd.get(), CUDNN_TENSOR_NCHW, cudnn_type(input.dtype()), 1, as_int(op, g.o), 1, 1),
        op);
    check_cudnn(cudnnAddTensor(call.handle(), s.one(), bd.get(), b.data_ptr(), s.one(), d.y.get(), out.data_ptr()), op);
  }
}

// input: input_backward(grad, other = weight) into size = the input's sizes;
// else weight_backward(grad, other = input) into size = the weight's sizes.
void conv2d_backward(const Conv2dMeta& g, const Tensor& out, const Tensor& grad, const Tensor& other,
                     IntArrayRef /*size*/, IntArrayRef /*stride*/, IntArrayRef /*padding*/, IntArrayRef /*dilation*/,
                     I64 /*groups*/, bool input) {
  const char* op = input ? "aten.convolution2d_input_backward" : "aten.convolution2d_weight_backward";
  (void)cudnn_type(grad.dtype());
  if (out.numel() == 0) return;
  const Device device = out.device();
  const DeviceGuard guard(device);
  if (grad.numel() == 0) {  // no output to differentiate: a zero gradient
    Tensor target = out;
    target.fill_(0);
    return;
  }
  const Tensor gr = contiguous_on(grad);
  const Tensor o = contiguous_on(other);
  ConvDescs d(op);
  set_descs(op, g, grad.dtype(), d);
  const Scales s(grad.dtype());
  const DnnCall call(device, op);
  const ConvKind kind = input ? ConvKind::kBackwardData : ConvKind::kBackwardFilter;
  const ConvBuffers b = input ? ConvBuffers{out.data_ptr(), o.data_ptr(), gr.data_ptr()}
                              : ConvBuffers{o.data_ptr(), out.data_ptr(), gr.data_ptr()};
  const AlgoChoice c = choose_algo(op, kind, call.handle(), d, call_key(kind, device, grad.dtype(), g), device, b);
  const Tensor ws = workspace(c.workspace, device);
  void* wsp = ws.defined() ? ws.data_ptr() : nullptr;
  if (input) {
    check_cudnn(cudnnConvolutionBackwardData(call.handle(), s.one(), d.w.get(), o.data_ptr(), d.y.get(), gr.data_ptr(),
                                             d.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo), wsp,
                                             c.workspace, s.zero(), d.x.get(), out.data_ptr()),
                op);
  } else {
    check_cudnn(
        cudnnConvolutionBackwardFilter(call.handle(), s.one(), d.x.get(), o.data_ptr(), d.y.get(), gr.data_ptr(),
                                       d.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(c.algo), wsp,
                                       c.workspace, s.zero(), d.w.get(), out.data_ptr()),
        op);
  }
}

// --- softmax -------------------------------------------------------------------------------------

void softmax_rows(const SoftmaxMeta& m, const Tensor& out, const Tensor& input, I64 /*dim*/,
                  std::optional<ScalarType> /*dtype*/, bool log) {
  const char* op = log ? "torch.log_softmax" : "torch.softmax";
  const ScalarType t = m.out.dtype;
  // The softmax kernels' loops: float32, float64, float16 and bfloat16
  // (the 16-bit ones in float32, rounded once).
  if (!is_floating(t)) throw_not_implemented_for(log ? "host_log_softmax" : "host_softmax", t);
  if (out.numel() == 0) return;
  const DeviceGuard guard(out.device());
  const Tensor x = input.dtype() == t ? contiguous_on(input) : contiguous_on(input.to(t));
  SoftmaxArgs a;
  a.x = x.data_ptr();
  a.y = out.data_ptr();
  a.type = t == ScalarType::kFloat64    ? DnnType::kFloat64
           : t == ScalarType::kFloat16  ? DnnType::kFloat16
           : t == ScalarType::kBFloat16 ? DnnType::kBFloat16
                                        : DnnType::kFloat32;
  a.outer = m.outer;
  a.n = m.n;
  a.inner = m.inner;
  a.log = log;
  launch_softmax(a, current_stream());
  check_launch(op);
}

}  // namespace wick::cuda_backend
