// backends/cpu/onednn_conv.cpp - 2-D convolution and its two adjoints on oneDNN's primitives, cached per geometry.
/// \file
/// Note [Convolution on oneDNN] in onednn.h. Each operator is one oneDNN
/// primitive (convolution_forward, _backward_data, _backward_weights)
/// between the caller's NCHW tensors and, where the primitive wants
/// another layout, reorders on either side; all of them, with the
/// scratchpad's size, live in one ConvPlan per geometry.
#include "onednn.h"

#ifdef WICK_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include <wick/backends.h>
#include <wick/checked.h>

#include "loops.h"
#endif

namespace wick::cpu {

#ifdef WICK_HAVE_ONEDNN
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

enum class Direction : std::uint8_t { kForward, kInput, kWeight };

// What a plan depends on: the geometry, the dtype, the direction, a bias
// (forward only), the layout asked for, and the thread count (oneDNN
// partitions the work when it builds the primitive).
struct PlanKey {
  std::array<std::int64_t, 17> geometry{};  // n c h w o kh kw oh ow sh sw ph pw dh dw groups threads
  Direction direction = Direction::kForward;
  ScalarType dtype = ScalarType::kFloat32;
  bool bias = false;
  bool blocked = false;
  bool winograd = false;
  bool operator==(const PlanKey&) const = default;
};

struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const noexcept {
    std::size_t h = static_cast<std::size_t>(k.direction) * 31 + static_cast<std::size_t>(k.dtype);
    h = h * 8 + (k.winograd ? 4 : 0) + (k.bias ? 2 : 0) + (k.blocked ? 1 : 0);
    for (const std::int64_t v : k.geometry) h = h * 1000003 ^ static_cast<std::size_t>(v);
    return h;
  }
};

// One tensor argument of the primitive: its oneDNN argument id, the
// caller's NCHW layout, the primitive's, and the reorder between them
// (plain to the primitive's for an operand read, back for the result).
struct Operand {
  int arg = 0;
  memory::desc plain;
  memory::desc used;
  std::optional<dnnl::reorder> reorder;
};

struct ConvPlan {
  dnnl::primitive conv;
  std::array<Operand, 2> inputs;  // forward: src, weights; kInput: diff_dst, weights; kWeight: diff_dst, src
  Operand output;                 // forward: dst; kInput: diff_src; kWeight: diff_weights
  memory::desc bias;              // forward with a bias only
  std::size_t scratchpad_bytes = 0;
};

Operand operand(int arg, const memory::desc& plain, const memory::desc& used, bool read) {
  Operand o{arg, plain, used, std::nullopt};
  if (plain != used) {
    o.reorder = read ? dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), plain, cpu_engine(), used))
                     : dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), used, cpu_engine(), plain));
  }
  return o;
}

// oneDNN's reference kernels (impl "ref:any") are slower than im2col: they count as no kernel.
bool is_reference(const std::string& impl) { return impl.find("ref") != std::string::npos; }

template <typename Pd>
bool fast(const Pd& pd) {
  return !is_reference(pd.impl_info_str());
}

// Note [Convolution on oneDNN]: below this many output positions a
// bfloat16 weight gradient runs on the float32 kernel, on CPUs with AMX.
constexpr std::int64_t kBf16WeightPositions = 4096;

// Whether oneDNN runs on AMX here (its bfloat16 weight-gradient kernel is
// then the slow one for few positions).
bool onednn_has_amx() {
  static const bool amx = dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_amx;
  return amx;
}

// The plan for `key`, or null when oneDNN has no fast kernel for it (or refuses it).
std::shared_ptr<const ConvPlan> build_plan(const PlanKey& key) {
  const auto& q = key.geometry;
  const std::int64_t n = q[0], c = q[1], h = q[2], w = q[3], o = q[4], kh = q[5], kw = q[6], oh = q[7], ow = q[8];
  const std::int64_t groups = q[15];
  const memory::data_type dt =
      key.dtype == ScalarType::kBFloat16 ? memory::data_type::bf16 : memory::data_type::f32;
  const memory::desc src_plain({n, c, h, w}, dt, Tag::nchw);
  const memory::desc dst_plain({n, o, oh, ow}, dt, Tag::nchw);
  const memory::desc weights_plain =
      groups == 1 ? memory::desc({o, c, kh, kw}, dt, Tag::oihw)
                  : memory::desc({groups, o / groups, c / groups, kh, kw}, dt, Tag::goihw);
  // On AMX, blocked bfloat16 weight gradients over few output positions
  // (n * oh * ow below kBf16WeightPositions) are computed in float32, the
  // reorders converting on the way in and rounding once on the way out:
  // there oneDNN 2.6's bfloat16 backward-weights kernel ran 5-40x slower
  // than its float32 one; over more positions it is up to 2x faster (Note
  // [Convolution on oneDNN]).
  const bool widen = key.dtype == ScalarType::kBFloat16 && key.direction == Direction::kWeight && key.blocked &&
                     n * oh * ow < kBf16WeightPositions && onednn_has_amx();
  const memory::data_type compute = widen ? memory::data_type::f32 : dt;
  const memory::desc src_ask({n, c, h, w}, compute, key.blocked ? Tag::any : Tag::nchw);
  const memory::desc dst_ask({n, o, oh, ow}, compute, key.blocked ? Tag::any : Tag::nchw);
  const memory::desc weights_ask(weights_plain.dims(), compute, Tag::any);
  const memory::desc bias_desc({o}, compute, Tag::x);
  const memory::dims strides{q[9], q[10]};
  const memory::dims dilates{q[13] - 1, q[14] - 1};  // oneDNN counts the gaps
  // PyTorch's symmetric padding: oneDNN's output size, (in + l + r - span) / stride + 1, is then the meta function's.
  const memory::dims padding{q[11], q[12]};
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);

  const auto algorithm = key.winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
  const dnnl::convolution_forward::desc forward_desc =
      key.direction == Direction::kForward && key.bias
          ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algorithm, src_ask, weights_ask,
                                            bias_desc, dst_ask, strides, dilates, padding, padding)
          : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algorithm, src_ask, weights_ask,
                                            dst_ask, strides, dilates, padding, padding);
  const dnnl::convolution_forward::primitive_desc forward(forward_desc, attr, cpu_engine());
  auto plan = std::make_shared<ConvPlan>();
  switch (key.direction) {
    case Direction::kForward:
      if (!fast(forward)) return nullptr;
      plan->conv = dnnl::convolution_forward(forward);
      plan->inputs = {operand(DNNL_ARG_SRC, src_plain, forward.src_desc(), true),
                      operand(DNNL_ARG_WEIGHTS, weights_plain, forward.weights_desc(), true)};
      plan->output = operand(DNNL_ARG_DST, dst_plain, forward.dst_desc(), false);
      if (key.bias) plan->bias = bias_desc;
      plan->scratchpad_bytes = forward.scratchpad_desc().get_size();
      break;
    case Direction::kInput: {
      const dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algorithm, src_ask, weights_ask, dst_ask, strides, dilates, padding,
                                                padding),
          attr, cpu_engine(), forward);
      if (!fast(pd)) return nullptr;
      plan->conv = dnnl::convolution_backward_data(pd);
      plan->inputs = {operand(DNNL_ARG_DIFF_DST, dst_plain, pd.diff_dst_desc(), true),
                      operand(DNNL_ARG_WEIGHTS, weights_plain, pd.weights_desc(), true)};
      plan->output = operand(DNNL_ARG_DIFF_SRC, src_plain, pd.diff_src_desc(), false);
      plan->scratchpad_bytes = pd.scratchpad_desc().get_size();
      break;
    }
    case Direction::kWeight: {
      const dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(algorithm, src_ask, weights_ask, dst_ask, strides, dilates,
                                                   padding, padding),
          attr, cpu_engine(), forward);
      if (!fast(pd)) return nullptr;
      plan->conv = dnnl::convolution_backward_weights(pd);
      plan->inputs = {operand(DNNL_ARG_DIFF_DST, dst_plain, pd.diff_dst_desc(), true),
                      operand(DNNL_ARG_SRC, src_plain, pd.src_desc(), true)};
      plan->output = operand(DNNL_ARG_DIFF_WEIGHTS, weights_plain, pd.diff_weights_desc(), false);
      plan->scratchpad_bytes = pd.scratchpad_desc().get_size();
      break;
    }
  }
  return plan;
}

// Note [oneDNN plan cache]
// Plans are looked up under one mutex; a missing one is built outside it
// (a JIT compilation, up to milliseconds) and the first of two racing
// builders wins. A refusal is cached too (a null plan), so a geometry
// oneDNN cannot run costs one try. The cache is cleared when it reaches
// kMaxPlans, a bound on the memory of a program that sweeps shapes;
// plans still running stay alive through their shared_ptr.
constexpr std::size_t kMaxPlans = 512;

std::shared_ptr<const ConvPlan> find_plan(const PlanKey& key) {
  static std::mutex lock;
  static std::unordered_map<PlanKey, std::shared_ptr<const ConvPlan>, PlanKeyHash> plans;
  {
    const std::lock_guard guard(lock);
    if (const auto it = plans.find(key); it != plans.end()) return it->second;
  }
  std::shared_ptr<const ConvPlan> plan;
  try {
    plan = build_plan(key);
  } catch (const dnnl::error&) {
    plan = nullptr;  // no implementation for this case
  }
  const std::lock_guard guard(lock);
  if (plans.size() >= kMaxPlans) plans.clear();
  return plans.try_emplace(key, std::move(plan)).first->second;
}

// Bytes from wick's allocator (its cache of large blocks makes a training
// loop's repeated buffers cheap).
Tensor buffer(std::size_t bytes) {
  return make_empty({static_cast<std::int64_t>(bytes)}, ScalarType::kUInt8);
}

// Runs `plan` on the callers' NCHW data: in0 and in1 the operands read, out the result.
void execute(const ConvPlan& plan, const Tensor& in0, const Tensor& in1, const std::optional<Tensor>& bias,
             const Tensor& out) {
  dnnl::engine& engine = cpu_engine();
  dnnl::stream stream(engine);
  std::unordered_map<int, memory> args;
  std::array<Tensor, 4> held;  // the reordered operands and the scratchpad, alive until the stream is done
  const Tensor* sources[2] = {&in0, &in1};
  for (std::size_t i = 0; i < 2; ++i) {
    const Operand& o = plan.inputs[i];
    memory plain(o.plain, engine, sources[i]->data_ptr());
    if (o.reorder) {
      held[i] = buffer(o.used.get_size());
      memory used(o.used, engine, held[i].data_ptr());
      o.reorder->execute(stream, plain, used);
      args.emplace(o.arg, used);
    } else {
      args.emplace(o.arg, plain);
    }
  }
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(plan.bias, engine, bias->data_ptr()));
  memory result(plan.output.plain, engine, out.data_ptr());
  memory written = result;
  if (plan.output.reorder) {
    held[2] = buffer(plan.output.used.get_size());
    written = memory(plan.output.used, engine, held[2].data_ptr());
  }
  args.emplace(plan.output.arg, written);
  if (plan.scratchpad_bytes != 0) {
    held[3] = buffer(plan.scratchpad_bytes);
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 memory({{static_cast<memory::dim>(plan.scratchpad_bytes)}, memory::data_type::u8, Tag::x}, engine,
                        held[3].data_ptr()));
  }
  plan.conv.execute(stream, args);
  if (plan.output.reorder) plan.output.reorder->execute(stream, written, result);
  stream.wait();
}

// Winograd's thresholds (Note [Winograd convolution on oneDNN]): 4x4
// output tiles over the batch, or input x output channels a group whose
// transformed weights (144 bytes a pair) stay in L2.
constexpr std::int64_t kWinogradTiles = 32;
constexpr std::int64_t kWinogradCachedWeights = 64 * 64;

// Note [Convolution on oneDNN]'s layout rule.
bool prefers_blocked(const Conv2dMeta& m, Direction direction) {
  const std::int64_t per_group_in = m.c / m.groups;
  if (m.kh * m.kw == 1) return false;
  if (per_group_in >= 16) return true;
  return direction != Direction::kInput && per_group_in >= 3;
}

// Note [Winograd convolution on oneDNN]: the shapes, and enough 4x4 output
// tiles to repay the transformed weights' memory (36 floats per input and
// output channel pair) when those leave the caches.
bool winograd_fits(const Conv2dMeta& m, ScalarType dtype) {
  const std::int64_t per_group_in = m.c / m.groups;
  const std::int64_t per_group_out = m.o / m.groups;
  if (dtype != ScalarType::kFloat32 || m.kh != 3 || m.kw != 3 || m.sh != 1 || m.sw != 1 || m.dh != 1 || m.dw != 1 ||
      per_group_in % 16 != 0 || per_group_out % 16 != 0)
    return false;
  const std::int64_t tiles = m.n * ((m.oh + 3) / 4) * ((m.ow + 3) / 4);
  return tiles >= kWinogradTiles || per_group_in * per_group_out <= kWinogradCachedWeights;
}

// Note [Small convolutions on im2col]'s bounds, in multiply-adds a call.
constexpr std::int64_t kIm2colWorkFloat = std::int64_t{8} << 20;
constexpr std::int64_t kIm2colWorkBFloat16 = std::int64_t{1} << 20;

// Whether m does fewer multiply-adds than `bound`. Every output element
// takes (c / groups) x kh x kw of them; both factors are bounded by
// tensors that exist (the output, the weight), their product need not be.
bool less_work_than(const Conv2dMeta& m, std::int64_t bound) {
  const std::int64_t outputs = checked_numel({m.n, m.o, m.oh, m.ow});
  const std::int64_t per_output = checked_numel({m.c / m.groups, m.kh, m.kw});
  return per_output == 0 || outputs < bound / per_output;
}

bool usable(const Conv2dMeta& m, ScalarType dtype) {
#ifdef __SANITIZE_THREAD__
  // ThreadSanitizer cannot see libgomp's barriers inside the uninstrumented
  // libdnnl, and would report its teams' writes as races with the caller:
  // the tsan preset's concurrency tests take im2col.
  return false;
#endif
  if (!backends::mkldnn_enabled()) return false;
  if (dtype != ScalarType::kFloat32 && dtype != ScalarType::kBFloat16) return false;
  if (m.n <= 0 || m.c <= 0 || m.o <= 0) return false;
  return !backends::mkldnn_small_on_im2col() ||
         !less_work_than(m, dtype == ScalarType::kFloat32 ? kIm2colWorkFloat : kIm2colWorkBFloat16);
}

// The plan for m: Winograd where it fits and oneDNN has it, else the
// direct kernels in the preferred layout, else in the other; null when
// none has a fast kernel.
std::shared_ptr<const ConvPlan> plan_for(const Conv2dMeta& m, Direction direction, ScalarType dtype, bool bias) {
  PlanKey key;
  // team_size() also sets this thread's OpenMP count, which oneDNN reads.
  key.geometry = {m.n,  m.c,  m.h,  m.w,  m.o,  m.kh, m.kw,     m.oh,       m.ow,
                  m.sh, m.sw, m.ph, m.pw, m.dh, m.dw, m.groups, team_size()};
  key.direction = direction;
  key.dtype = dtype;
  key.bias = bias;
  if (winograd_fits(m, dtype) && backends::mkldnn_winograd()) {
    key.blocked = true;
    key.winograd = true;
    if (auto plan = find_plan(key)) return plan;
    key.winograd = false;
  }
  key.blocked = prefers_blocked(m, direction);
  if (auto plan = find_plan(key)) return plan;
  key.blocked = !key.blocked;
  return find_plan(key);
}

}  // namespace

bool onednn_convolution(const Conv2dMeta& m, const Tensor& out, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias) {
  if (!usable(m, input.dtype())) return false;
  const auto plan = plan_for(m, Direction::kForward, input.dtype(), bias.has_value());
  if (!plan) return false;
  std::optional<Tensor> b;
  if (bias) b = bias->contiguous();
  execute(*plan, input.contiguous(), weight.contiguous(), b, out);
  return true;
}

bool onednn_convolution_backward(const Conv2dMeta& m, const Tensor& out, const Tensor& grad, const Tensor& other,
                                 bool input) {
  if (!usable(m, grad.dtype())) return false;
  const auto plan = plan_for(m, input ? Direction::kInput : Direction::kWeight, grad.dtype(), false);
  if (!plan) return false;
  execute(*plan, grad.contiguous(), other.contiguous(), std::nullopt, out);
  return true;
}

#else

bool onednn_convolution(const Conv2dMeta& /*m*/, const Tensor& /*out*/, const Tensor& /*input*/,
                        const Tensor& /*weight*/, const std::optional<Tensor>& /*bias*/) {
  return false;
}

bool onednn_convolution_backward(const Conv2dMeta& /*m*/, const Tensor& /*out*/, const Tensor& /*grad*/,
                                 const Tensor& /*other*/, bool /*input*/) {
  return false;
}

#endif

}  // namespace wick::cpu
