// plugins/nccl/nccl_engine.cpp - the nccl plugin: torch.distributed's collectives on CUDA tensors, by NCCL.
/// \file
/// Note [NCCL streams and timeouts]
/// Each engine owns one CUDA stream on the device that was current when the
/// group was made (as PyTorch, which expects `torch.cuda.set_device(local_rank)`
/// first). A collective first waits for the device (the CUDA backend's
/// kernels that made its inputs may still run), enqueues the NCCL call on
/// its stream, and polls the stream until it finishes or the group's timeout
/// passes; then it aborts the communicator (NCCL would wait forever for a
/// rank that is gone) and throws, and the group names the rank that failed.
///
/// Note [NCCL and dtypes]
/// NCCL has float32/64, float16, bfloat16 and 8/32/64-bit integers. bool
/// travels as uint8 with max for sum and bor and min for product and band;
/// complex tensors travel as pairs of floats (sum and avg only); int16 and
/// the bitwise ops on integers are refused (supports() says so first).
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <wick/distributed_backend.h>
#include <wick/loader.h>
#include <wick/plugin.h>

namespace {

namespace dist = wick::distributed;
using wick::ScalarType;
using wick::Tensor;
using Clock = std::chrono::steady_clock;

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw wick::RuntimeError(std::string("nccl: ") + what + ": " + cudaGetErrorString(e));
}

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess && r != ncclInProgress) throw wick::RuntimeError(std::string("nccl: ") + what + ": " + ncclGetErrorString(r));
}

struct Wire {
  ncclDataType_t type;
  std::size_t count;  // elements of `type`
};

Wire wire_of(const Tensor& t) {
  const auto n = static_cast<std::size_t>(t.numel());
  switch (t.dtype()) {
    case ScalarType::kFloat32: return {ncclFloat32, n};
    case ScalarType::kFloat64: return {ncclFloat64, n};
    case ScalarType::kFloat16: return {ncclFloat16, n};
    case ScalarType::kBFloat16: return {ncclBfloat16, n};
    case ScalarType::kInt8: return {ncclInt8, n};
    case ScalarType::kUInt8:
    case ScalarType::kBool: return {ncclUint8, n};
    case ScalarType::kInt32: return {ncclInt32, n};
    case ScalarType::kInt64: return {ncclInt64, n};
    case ScalarType::kComplex64: return {ncclFloat32, 2 * n};
    case ScalarType::kComplex128: return {ncclFloat64, 2 * n};
    default: break;
  }
  throw wick::TypeError(std::string("nccl: no NCCL type for ") + std::string(wick::dtype_name(t.dtype())));
}

ncclRedOp_t op_of(dist::ReduceOp op, ScalarType t) {
  const bool boolean = t == ScalarType::kBool;
  switch (op) {
    case dist::ReduceOp::kSum: return boolean ? ncclMax : ncclSum;
    case dist::ReduceOp::kProduct: return boolean ? ncclMin : ncclProd;
    case dist::ReduceOp::kMin: return ncclMin;
    case dist::ReduceOp::kMax: return ncclMax;
    case dist::ReduceOp::kBor: return ncclMax;   // bool only (supports())
    case dist::ReduceOp::kBand: return ncclMin;  // bool only
    default: break;
  }
  throw wick::ValueError(std::string("nccl: ReduceOp.") + dist::reduce_op_name(op) + " is not supported");
}

class NcclEngine final : public dist::Engine {
 public:
  explicit NcclEngine(const dist::EngineOptions& o) : Engine(o), timeout_(o.timeout) {
    check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaMalloc(&scratch_, 64), "cudaMalloc");
    ncclUniqueId id;
    if (o.rank == 0) {
      check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      const auto* p = reinterpret_cast<const std::uint8_t*>(&id);
      o.store->set("nccl_unique_id", std::vector<std::uint8_t>(p, p + sizeof(id)));
    } else {
      const auto bytes = o.store->get("nccl_unique_id");
      if (bytes.size() != sizeof(id)) throw wick::RuntimeError("nccl: the unique id in the store has the wrong size");
      std::memcpy(&id, bytes.data(), sizeof(id));
    }
    check_nccl(ncclCommInitRank(&comm_, o.size, id, o.rank), "ncclCommInitRank");
  }

  ~NcclEngine() override {
    if (comm_ != nullptr) ncclCommDestroy(comm_);
    cudaFree(scratch_);
    cudaStreamDestroy(stream_);
  }
  NcclEngine(const NcclEngine&) = delete;
  NcclEngine& operator=(const NcclEngine&) = delete;

  [[nodiscard]] bool supports(ScalarType dtype) const override {
    return dtype != ScalarType::kInt16 && dtype != ScalarType::kUndefined;
  }
  [[nodiscard]] bool supports(dist::ReduceOp op, ScalarType dtype) const override {
    if (!supports(dtype)) return false;
    const bool complex = dtype == ScalarType::kComplex64 || dtype == ScalarType::kComplex128;
    if (complex) return op == dist::ReduceOp::kSum || op == dist::ReduceOp::kAvg;
    if (op == dist::ReduceOp::kBxor) return false;
    if (op == dist::ReduceOp::kBand || op == dist::ReduceOp::kBor) return dtype == ScalarType::kBool;
    return true;
  }

  void all_reduce(const Tensor& t, dist::ReduceOp op) override {
    const Wire w = wire_of(t);
    run("all_reduce", [&] { return ncclAllReduce(t.data_ptr(), t.data_ptr(), w.count, w.type, op_of(op, t.dtype()), comm_, stream_); });
  }
  void broadcast(const Tensor& t, int root) override {
    const Wire w = wire_of(t);
    run("broadcast", [&] { return ncclBroadcast(t.data_ptr(), t.data_ptr(), w.count, w.type, root, comm_, stream_); });
  }
  void reduce(const Tensor& t, int root, dist::ReduceOp op) override {
    const Wire w = wire_of(t);
    run("reduce", [&] { return ncclReduce(t.data_ptr(), t.data_ptr(), w.count, w.type, op_of(op, t.dtype()), root, comm_, stream_); });
  }
  void all_gather(const Tensor& out, const Tensor& in) override {
    const Wire w = wire_of(in);
    run("all_gather", [&] { return ncclAllGather(in.data_ptr(), out.data_ptr(), w.count, w.type, comm_, stream_); });
  }
  void gather(const Tensor& out, const Tensor& in, int root) override {
    const Wire w = wire_of(in);
    const std::size_t bytes = static_cast<std::size_t>(in.numel()) * wick::itemsize(in.dtype());
    run("gather", [&] {
      ncclResult_t r = ncclGroupStart();
      if (rank() == root) {
        for (int peer = 0; peer < size() && r == ncclSuccess; ++peer) {
          auto* dst = static_cast<char*>(out.data_ptr()) + static_cast<std::size_t>(peer) * bytes;
          if (peer == root) {
            if (cudaMemcpyAsync(dst, in.data_ptr(), bytes, cudaMemcpyDeviceToDevice, stream_) != cudaSuccess) r = ncclUnhandledCudaError;
          } else {
            r = ncclRecv(dst, w.count, w.type, peer, comm_, stream_);
          }
        }
      } else {
        r = ncclSend(in.data_ptr(), w.count, w.type, root, comm_, stream_);
      }
      const ncclResult_t end = ncclGroupEnd();
      return r != ncclSuccess ? r : end;
    });
  }
  void scatter(const Tensor& out, const Tensor& in, int root) override {
    const Wire w = wire_of(out);
    const std::size_t bytes = static_cast<std::size_t>(out.numel()) * wick::itemsize(out.dtype());
    run("scatter", [&] {
      ncclResult_t r = ncclGroupStart();
      if (rank() == root) {
        for (int peer = 0; peer < size() && r == ncclSuccess; ++peer) {
          const auto* src = static_cast<const char*>(in.data_ptr()) + static_cast<std::size_t>(peer) * bytes;
          if (peer == root) {
            if (cudaMemcpyAsync(out.data_ptr(), src, bytes, cudaMemcpyDeviceToDevice, stream_) != cudaSuccess) r = ncclUnhandledCudaError;
          } else {
            r = ncclSend(src, w.count, w.type, peer, comm_, stream_);
          }
        }
      } else {
        r = ncclRecv(out.data_ptr(), w.count, w.type, root, comm_, stream_);
      }
      const ncclResult_t end = ncclGroupEnd();
      return r != ncclSuccess ? r : end;
    });
  }
  void reduce_scatter(const Tensor& out, const Tensor& in, dist::ReduceOp op) override {
    const Wire w = wire_of(out);
    run("reduce_scatter", [&] {
      return ncclReduceScatter(in.data_ptr(), out.data_ptr(), w.count, w.type, op_of(op, out.dtype()), comm_, stream_);
    });
  }
  void all_to_all(const Tensor& out, const Tensor& in, const std::vector<std::int64_t>& out_counts,
                  const std::vector<std::int64_t>& in_counts) override {
    const Wire w = wire_of(in);
    const std::size_t per = w.count / std::max<std::size_t>(1, static_cast<std::size_t>(in.numel()));  // wire elements per element
    const std::size_t item = wick::itemsize(in.dtype());
    run("all_to_all", [&] {
      ncclResult_t r = ncclGroupStart();
      std::size_t in_at = 0;
      std::size_t out_at = 0;
      for (int peer = 0; peer < size() && r == ncclSuccess; ++peer) {
        const auto n_in = static_cast<std::size_t>(in_counts[static_cast<std::size_t>(peer)]);
        const auto n_out = static_cast<std::size_t>(out_counts[static_cast<std::size_t>(peer)]);
        r = ncclSend(static_cast<const char*>(in.data_ptr()) + in_at * item, n_in * per, w.type, peer, comm_, stream_);
        if (r == ncclSuccess) r = ncclRecv(static_cast<char*>(out.data_ptr()) + out_at * item, n_out * per, w.type, peer, comm_, stream_);
        in_at += n_in;
        out_at += n_out;
      }
      const ncclResult_t end = ncclGroupEnd();
      return r != ncclSuccess ? r : end;
    });
  }
  void barrier() override {
    run("barrier", [&] { return ncclAllReduce(scratch_, scratch_, 1, ncclFloat32, ncclSum, comm_, stream_); });
  }
  void send(const Tensor& t, int dst, int /*tag*/) override {
    const Wire w = wire_of(t);
    run("send", [&] { return ncclSend(t.data_ptr(), w.count, w.type, dst, comm_, stream_); });
  }
  int recv(const Tensor& t, int src, int /*tag*/) override {
    if (src < 0) throw wick::ValueError("nccl: recv needs a source rank (NCCL cannot receive from any rank)");
    const Wire w = wire_of(t);
    run("recv", [&] { return ncclRecv(t.data_ptr(), w.count, w.type, src, comm_, stream_); });
    return src;
  }

 private:
  /// Note [NCCL streams and timeouts]
  template <class F>
  void run(const char* what, F&& enqueue) {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    check_cuda(cudaDeviceSynchronize(), "waiting for the device");
    check_nccl(enqueue(), what);
    const auto deadline = Clock::now() + timeout_;
    for (;;) {
      const cudaError_t q = cudaStreamQuery(stream_);
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) check_cuda(q, what);
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        throw wick::RuntimeError(std::string("nccl: ") + what + " failed: " + ncclGetErrorString(async));
      }
      if (Clock::now() > deadline) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        throw wick::RuntimeError(std::string("nccl: ") + what + " timed out after " + std::to_string(timeout_.count()) + " ms");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  std::chrono::milliseconds timeout_;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  void* scratch_ = nullptr;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

WICK_PLUGIN("nccl", "1.0.0", registrar) {
  // NCCL keeps threads and state for the life of the process: never unmapped.
  wick::keep_library_mapped(registrar, reinterpret_cast<const void*>(&ncclGetUniqueId));
  dist::register_engine(registrar, "nccl", {wick::DeviceType::kCUDA},
                        [](const dist::EngineOptions& o) { return std::make_unique<NcclEngine>(o); });
}
