// plugins/gloo/gloo_engine.cpp - the gloo plugin: torch.distributed's collectives on CPU tensors over TCP, by Gloo.
/// \file
/// Note [Gloo and dtypes]
/// Gloo moves bytes; only reductions look at values. Every collective here
/// hands Gloo elements as opaque blocks of the dtype's size, and the
/// reductions are our own element functions, one per dtype and ReduceOp
/// (what Gloo's own sum/product/min/max do for the dtypes it knows, and the
/// same for bool, int16, bfloat16 and the complex dtypes, which it does
/// not). So every wick dtype moves, as with PyTorch's Gloo backend; min and
/// max of complex numbers are refused, and the bitwise ops take integers
/// and bool.
///
/// Note [Gloo's address]
/// Gloo listens on the address the group names (EngineOptions::address:
/// the one this process reaches the store from), unless GLOO_SOCKET_IFNAME
/// names an interface, as with PyTorch. Each collective's messages carry
/// the group's call tag (Note [Call tags], wick/distributed_backend.h).
///
/// Note [SIGPIPE]
/// Gloo writes to its peers' sockets without MSG_NOSIGNAL, so a write to a
/// rank that has died raises SIGPIPE, whose default action kills this
/// process before Gloo can report the error. The first engine therefore
/// ignores SIGPIPE when its disposition is still the default, as the
/// Python interpreter does at start-up for PyTorch: the write then fails
/// with EPIPE, and the collective raises its error naming the ranks that
/// have gone. A handler the program installed itself is left alone.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include <signal.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <wick/distributed_backend.h>
#include <wick/half.h>
#include <wick/plugin.h>

namespace {

namespace dist = wick::distributed;
using wick::ScalarType;
using wick::Tensor;

/// Gloo's rendezvous through our store.
class StoreAdapter final : public gloo::rendezvous::Store {
 public:
  explicit StoreAdapter(std::shared_ptr<dist::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<std::uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const auto v = store_->get(key);
    return {v.begin(), v.end()};
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<dist::Store> store_;
};

/// An element of `N` bytes: what Gloo's templates size buffers with.
template <std::size_t N>
struct Block {
  std::uint8_t bytes[N];
};

// --- reductions (Note [Gloo and dtypes]) ---------------------------------------------

template <class T>
T combine(dist::ReduceOp op, T a, T b) {
  switch (op) {
    case dist::ReduceOp::kProduct:
      return static_cast<T>(a * b);
    case dist::ReduceOp::kMin:
      if constexpr (requires { a < b; }) return b < a ? b : a;
      return a;
    case dist::ReduceOp::kMax:
      if constexpr (requires { a < b; }) return a < b ? b : a;
      return a;
    case dist::ReduceOp::kBand:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a & b);
      return a;
    case dist::ReduceOp::kBor:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a | b);
      return a;
    case dist::ReduceOp::kBxor:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(a ^ b);
      return a;
    default:
      return static_cast<T>(a + b);
  }
}

template <class T, dist::ReduceOp kOp>
void reduce_elements(void* c, const void* a, const void* b, std::size_t n) {
  auto* out = static_cast<T*>(c);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  for (std::size_t i = 0; i < n; ++i) out[i] = combine<T>(kOp, x[i], y[i]);
}

// 16-bit floats compute in float and round once per element.
template <class H, dist::ReduceOp kOp>
void reduce_halves(void* c, const void* a, const void* b, std::size_t n) {
  auto* out = static_cast<H*>(c);
  const auto* x = static_cast<const H*>(a);
  const auto* y = static_cast<const H*>(b);
  for (std::size_t i = 0; i < n; ++i) out[i] = H(combine<float>(kOp, static_cast<float>(x[i]), static_cast<float>(y[i])));
}

void reduce_bools(void* c, const void* a, const void* b, std::size_t n, dist::ReduceOp op) {
  auto* out = static_cast<std::uint8_t*>(c);
  const auto* x = static_cast<const std::uint8_t*>(a);
  const auto* y = static_cast<const std::uint8_t*>(b);
  for (std::size_t i = 0; i < n; ++i) {
    const bool p = x[i] != 0;
    const bool q = y[i] != 0;
    bool r = false;
    switch (op) {
      case dist::ReduceOp::kProduct:
      case dist::ReduceOp::kMin:
      case dist::ReduceOp::kBand:
        r = p && q;
        break;
      case dist::ReduceOp::kBxor:
        r = p != q;
        break;
      default:  // sum, max, bor: PyTorch's bool sum saturates to True
        r = p || q;
    }
    out[i] = r ? 1 : 0;
  }
}

template <dist::ReduceOp kOp>
void reduce_bool_op(void* c, const void* a, const void* b, std::size_t n) {
  reduce_bools(c, a, b, n, kOp);
}

using ReduceFn = void (*)(void*, const void*, const void*, std::size_t);

template <dist::ReduceOp kOp>
ReduceFn reduce_fn_for(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat32: return &reduce_elements<float, kOp>;
    case ScalarType::kFloat64: return &reduce_elements<double, kOp>;
    case ScalarType::kInt64: return &reduce_elements<std::int64_t, kOp>;
    case ScalarType::kInt32: return &reduce_elements<std::int32_t, kOp>;
    case ScalarType::kInt16: return &reduce_elements<std::int16_t, kOp>;
    case ScalarType::kInt8: return &reduce_elements<std::int8_t, kOp>;
    case ScalarType::kUInt8: return &reduce_elements<std::uint8_t, kOp>;
    case ScalarType::kBool: return &reduce_bool_op<kOp>;
    case ScalarType::kFloat16: return &reduce_halves<wick::Half, kOp>;
    case ScalarType::kBFloat16: return &reduce_halves<wick::BFloat16, kOp>;
    case ScalarType::kComplex64: return &reduce_elements<std::complex<float>, kOp>;
    case ScalarType::kComplex128: return &reduce_elements<std::complex<double>, kOp>;
    default: break;
  }
  throw wick::TypeError("gloo: no reduction for this dtype");
}

ReduceFn reduce_fn(dist::ReduceOp op, ScalarType t) {
  switch (op) {
    case dist::ReduceOp::kSum: return reduce_fn_for<dist::ReduceOp::kSum>(t);
    case dist::ReduceOp::kProduct: return reduce_fn_for<dist::ReduceOp::kProduct>(t);
    case dist::ReduceOp::kMin: return reduce_fn_for<dist::ReduceOp::kMin>(t);
    case dist::ReduceOp::kMax: return reduce_fn_for<dist::ReduceOp::kMax>(t);
    case dist::ReduceOp::kBand: return reduce_fn_for<dist::ReduceOp::kBand>(t);
    case dist::ReduceOp::kBor: return reduce_fn_for<dist::ReduceOp::kBor>(t);
    case dist::ReduceOp::kBxor: return reduce_fn_for<dist::ReduceOp::kBxor>(t);
    default: break;
  }
  throw wick::ValueError(std::string("gloo: ReduceOp.") + dist::reduce_op_name(op) + " is not supported");
}

/// Calls `f(Block<itemsize>{})`: Gloo's options are templates on the element type.
template <class F>
void with_block(ScalarType t, F&& f) {
  switch (wick::itemsize(t)) {
    case 1: f(Block<1>{}); return;
    case 2: f(Block<2>{}); return;
    case 4: f(Block<4>{}); return;
    case 8: f(Block<8>{}); return;
    case 16: f(Block<16>{}); return;
    default: throw wick::TypeError("gloo: unsupported element size");
  }
}

template <class B>
B* data_of(const Tensor& t) {
  return static_cast<B*>(t.data_ptr());
}

std::size_t count(const Tensor& t) { return static_cast<std::size_t>(t.numel()); }

constexpr std::uint8_t kSendRecvPrefix = 0x5a;

// --- the engine ---------------------------------------------------------------------------

// SIG_IGN for SIGPIPE unless the program set a disposition (Note [SIGPIPE]).
void ignore_sigpipe() {
  static const bool once = [] {
    struct sigaction current {};
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
        (current.sa_flags & SA_SIGINFO) == 0) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      (void)::sigaction(SIGPIPE, &ignore, nullptr);
    }
    return true;
  }();
  (void)once;
}

class GlooEngine final : public dist::Engine {
 public:
  explicit GlooEngine(const dist::EngineOptions& o) : Engine(o), timeout_(o.timeout) {
    ignore_sigpipe();
    gloo::transport::tcp::attr attr;
    if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface != nullptr && *iface != '\0') {
      attr.iface = iface;
    } else {
      attr.hostname = o.address;
    }
    device_ = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(o.rank, o.size);
    context->setTimeout(o.timeout);
    StoreAdapter store(o.store);
    context->connectFullMesh(store, device_);
    context_ = std::move(context);
  }

  [[nodiscard]] bool supports(dist::ReduceOp op, ScalarType dtype) const override {
    const bool complex = dtype == ScalarType::kComplex64 || dtype == ScalarType::kComplex128;
    if (complex && (op == dist::ReduceOp::kMin || op == dist::ReduceOp::kMax)) return false;
    return Engine::supports(op, dtype);
  }

  void all_reduce(const Tensor& t, dist::ReduceOp op) override {
    if (t.numel() == 0) return;
    with_block(t.dtype(), [&]<class B>(B) {
      gloo::AllreduceOptions opts(context_);
      opts.setOutput(data_of<B>(t), count(t));
      opts.setReduceFunction(gloo::AllreduceOptions::Func(reduce_fn(op, t.dtype())));
      opts.setTag(call_tag());
      opts.setTimeout(timeout_);
      gloo::allreduce(opts);
    });
  }

  void broadcast(const Tensor& t, int root) override {
    with_block(t.dtype(), [&]<class B>(B) {
      gloo::BroadcastOptions opts(context_);
      opts.setOutput(data_of<B>(t), count(t));
      opts.setRoot(root);
      opts.setTag(call_tag());
      opts.setTimeout(timeout_);
      gloo::broadcast(opts);
    });
  }

  void reduce(const Tensor& t, int root, dist::ReduceOp op) override {
    with_block(t.dtype(), [&]<class B>(B) {
      gloo::ReduceOptions opts(context_);
      opts.setOutput(data_of<B>(t), count(t));
      opts.setRoot(root);
      opts.setReduceFunction(gloo::ReduceOptions::Func(reduce_fn(op, t.dtype())));
      opts.setTag(call_tag());
      opts.setTimeout(timeout_);
      gloo::reduce(opts);
    });
  }

  void all_gather(const Tensor& out, const Tensor& in) override {
    with_block(in.dtype(), [&]<class B>(B) {
      gloo::AllgatherOptions opts(context_);
      opts.setInput(data_of<B>(in), count(in));
      opts.setOutput(data_of<B>(out), count(out));
      opts.setTag(call_tag());
      opts.setTimeout(timeout_);
      gloo::allgather(opts);
    });
  }

  void gather(const Tensor& out, const Tensor& in, int root) override {
    with_block(in.dtype(), [&]<class B>(B) {
      gloo::GatherOptions opts(context_);
      opts.setInput(data_of<B>(in), count(in));
      if (rank() == root) opts.setOutput(data_of<B>(out), count(out));
      opts.setRoot(root);
      opts.setTag(call_tag());
      opts.setTimeout(timeout_);
      gloo::gather(opts);
    });
  }

  void scatter(const Tensor& out, const Tensor& in, int root) override {
    with_block(out.dtype(), [&]<class B>(B) {
      gloo::ScatterOptions opts(context_);
      if (rank() == root) {
        std::vector<B*> chunks;
        for (int r = 0; r < size(); ++r) chunks.push_back(data_of<B>(in) + static_cast<std::size_t>(r) * count(out));
        opts.setInputs(chunks, count(out));
      }
      opts.setOutput(data_of<B>(out), count(out));
      opts.setRoot(root);
      opts.setTag(call_tag());
      opts.setTimeout(timeout_);
      gloo::scatter(opts);
    });
  }

  void all_to_all(const Tensor& out, const Tensor& in, const std::vector<std::int64_t>& out_counts,
                  const std::vector<std::int64_t>& in_counts) override {
    const bool even = std::all_of(out_counts.begin(), out_counts.end(), [&](std::int64_t c) { return c == out_counts[0]; }) &&
                      out_counts == in_counts;
    with_block(in.dtype(), [&]<class B>(B) {
      if (even) {
        if (in.numel() == 0) return;
        gloo::AlltoallOptions opts(context_);
        opts.setInput(data_of<B>(in), count(in));
        opts.setOutput(data_of<B>(out), count(out));
        opts.setTag(call_tag());
        opts.setTimeout(timeout_);
        gloo::alltoall(opts);
      } else {
        gloo::AlltoallvOptions opts(context_);
        opts.setInput(data_of<B>(in), in_counts);
        opts.setOutput(data_of<B>(out), out_counts);
        opts.setTag(call_tag());
        opts.setTimeout(timeout_);
        gloo::alltoallv(opts);
      }
    });
  }

  void barrier() override {
    gloo::BarrierOptions opts(context_);
    opts.setTag(call_tag());
    opts.setTimeout(timeout_);
    gloo::barrier(opts);
  }

  void send(const Tensor& t, int dst, int tag) override {
    auto buf = context_->createUnboundBuffer(t.data_ptr(), checked_bytes(t));
    buf->send(dst, gloo::Slot::build(kSendRecvPrefix, static_cast<std::uint32_t>(tag)));
    if (!buf->waitSend(timeout_)) {
      throw wick::RuntimeError("timed out after " + std::to_string(timeout_.count()) + " ms sending to rank " + std::to_string(dst));
    }
  }

  int recv(const Tensor& t, int src, int tag) override {
    auto buf = context_->createUnboundBuffer(t.data_ptr(), checked_bytes(t));
    const auto slot = gloo::Slot::build(kSendRecvPrefix, static_cast<std::uint32_t>(tag));
    if (src >= 0) {
      buf->recv(src, slot);
    } else {
      std::vector<int> from;
      for (int r = 0; r < size(); ++r) {
        if (r != rank()) from.push_back(r);
      }
      buf->recv(from, slot);
    }
    int sender = -1;
    if (!buf->waitRecv(&sender, timeout_)) {
      throw wick::RuntimeError("timed out after " + std::to_string(timeout_.count()) + " ms receiving from " +
                               (src >= 0 ? "rank " + std::to_string(src) : std::string("any rank")));
    }
    return sender;
  }

 private:
  static std::size_t checked_bytes(const Tensor& t) { return count(t) * wick::itemsize(t.dtype()); }

  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::Context> context_;
};

}  // namespace

WICK_PLUGIN("gloo", "1.0.0", registrar) {
  dist::register_engine(registrar, "gloo", {wick::DeviceType::kCPU},
                        [](const dist::EngineOptions& o) { return std::make_unique<GlooEngine>(o); });
}
