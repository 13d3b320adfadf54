// tests/cuda/cuda_ops_test.cpp - the CUDA backend against the CPU backend, on a GPU.
/// \file
/// Every operator sample the CPU tests use (tests/autograd/formula_samples.h)
/// runs on the CPU and on CUDA, and the results must agree: float32 to
/// rtol 1e-4 / atol 1e-5 (GPU math functions and summation orders differ in
/// the last bits), integers and bools exactly, random operators in shape
/// and dtype. Then what only a device has: transfers, streams, the caching
/// allocator, autograd on device tensors, mixing devices. Every test skips,
/// saying why, when no CUDA device is present (CI has none).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/autograd/formula_samples.h"
#include "wick/autograd.h"
#include "wick/backends.h"
#include "wick/cuda.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor_util.h"

namespace wick::testing {
namespace {

const Device kCuda(DeviceType::kCUDA, 0);

class Cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    if (!cuda::is_available()) {
      GTEST_SKIP() << (device_runtime(DeviceType::kCUDA) == nullptr
                           ? "no CUDA device: the CUDA backend is not built, or found no GPU or driver"
                           : "no CUDA device");
    }
  }
};

// A Value with its tensors moved to `device` (lists of tensors too).
Value moved(const Value& v, Device device) {
  if (v.is_tensor()) return Value(v.to_tensor().to(device));
  if (v.is_tensor_list()) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.to_tensor_list()) out.push_back(t.to(device));
    return Value(std::move(out));
  }
  return v;
}

std::vector<double> host_values(const Tensor& t) {
  const Tensor h = t.cpu().to(ScalarType::kFloat64).contiguous();
  const double* p = h.data_ptr<double>();
  return {p, p + h.numel()};
}

// Empty when they agree; else what differs.
std::string compare(const Tensor& cpu, const Tensor& gpu, bool random) {
  std::ostringstream why;
  if (!gpu.device().is_cpu() && gpu.device().type() != DeviceType::kCUDA) return "result on " + gpu.device().str();
  if (!cpu.sizes().equals(gpu.sizes())) {
    why << "shape " << format_shape(gpu.sizes()) << " vs " << format_shape(cpu.sizes());
    return why.str();
  }
  if (cpu.dtype() != gpu.dtype()) {
    why << "dtype " << dtype_name(gpu.dtype()) << " vs " << dtype_name(cpu.dtype());
    return why.str();
  }
  if (random) return {};
  const std::vector<double> a = host_values(cpu);
  const std::vector<double> b = host_values(gpu);
  const bool exact = !is_floating(cpu.dtype());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    const double tol = exact ? 0.0 : 1e-5 + 1e-4 * std::abs(a[i]);
    if (!(std::abs(a[i] - b[i]) <= tol) && a[i] != b[i]) {
      why << "element " << i << ": " << b[i] << " vs " << a[i];
      return why.str();
    }
  }
  return {};
}

// A 0-dim CPU tensor: a wrapped Python number.
Tensor two() { return tensor(Value(2.0)); }

bool random_op(const std::string& name) {
  return name == "rand" || name == "randn" || name == "randint" || name == "rand_like" || name == "randn_like" ||
         name == "dropout" || name == "bernoulli" || name == "bernoulli_" || name == "multinomial" || name == "normal";
}

// Calls fn(entry, sample, inputs) for every sample of every torch operator
// with a tensor argument; inputs are float32, detached, seeded alike.
template <typename Fn>
void for_each_sample(Fn&& fn) {
  for (const CatalogEntry& e : catalog_entries()) {
    if (e.ns.rfind("torch", 0) != 0) continue;
    if (!has_tensor_argument(find_op(e.qualified_name).schema())) continue;  // creation functions: below
    for (const Sample& s : samples_for(e)) {
      manual_seed(0);
      autograd::tensor_list in = make_inputs(s, domain_of(e), ScalarType::kFloat32);
      for (Tensor& t : in) t = t.detach();
      fn(e, s, in);
    }
  }
}

// The sample's fixed values and its inputs moved to the device.
std::pair<Sample, autograd::tensor_list> on_cuda(const Sample& s, const autograd::tensor_list& in) {
  autograd::tensor_list gin;
  for (const Tensor& t : in) gin.push_back(t.to(kCuda));
  Sample gs = s;
  for (Arg& a : gs.args)
    if (auto* v = std::get_if<Value>(&a)) *v = moved(*v, kCuda);
  for (auto& [name, v] : gs.kwargs) v = moved(v, kCuda);
  return {gs, gin};
}

// Full float32 on the device for the comparison (Note [TF32]: cuDNN's
// default TF32 parts from the CPU in the fourth digit), restored after.
class NoTf32 {
 public:
  NoTf32() { backends::set_cudnn_allow_tf32(false); }
  ~NoTf32() { backends::set_cudnn_allow_tf32(was_); }
  NoTf32(const NoTf32&) = delete;
  NoTf32& operator=(const NoTf32&) = delete;

 private:
  bool was_ = backends::cudnn_allow_tf32();
};

// Operators whose samples are complex, which the device refuses (wick has
// no complex CUDA kernels yet): refused there, they are counted and left
// out; where they run, they are compared as any other. Every other
// operator must run on the device.
bool not_on_cuda_yet(const CatalogEntry& e) {
  std::string name = e.name;
  if (name.size() > 1 && name.back() == '_' && name.front() != '_') name.pop_back();
  // Their samples are complex tensors, or make them, which the device loops refuse.
  static const std::set<std::string> complex = {"view_as_real", "real", "imag", "conj", "conj_physical",
                                                "resolve_conj", "resolve_neg", "is_conj", "is_neg",
                                                "is_complex", "angle", "sgn", "cfloat", "cdouble"};
  return complex.count(name) != 0;
}

TEST_F(Cuda, EveryOperatorSampleMatchesTheCpu) {
  const NoTf32 full_float32;
  std::vector<std::string> failures;
  int compared = 0;
  int not_yet = 0;
  for_each_sample([&](const CatalogEntry& e, const Sample& s, const autograd::tensor_list& in) {
    // Moved first: an in-place operator writes into the sample's tensors
    // (its literal ones too), and the device must start from the same values.
    const auto [gs, gin] = on_cuda(s, in);
    Value want;
    try {
      want = call_sample(e.qualified_name, s, in, true, ScalarType::kFloat32);
    } catch (const Error&) {
      return;  // the sample does not run on the CPU either
    }
    manual_seed(0);
    try {
      const Value got = call_sample(e.qualified_name, gs, gin, true, ScalarType::kFloat32);
      if (!got.is_tensor() && !got.is_tuple() && !got.is_tensor_list()) {  // a dtype, a number, a bool
        if (got.repr() != want.repr()) failures.push_back(e.qualified_name + ": " + got.repr() + " vs " + want.repr());
        ++compared;
        return;
      }
      const Tensor g = as_one_tensor(got);
      if (!g.device().is_cpu() && g.device() != kCuda)
        failures.push_back(e.qualified_name + ": result on " + g.device().str());
      if (std::string d = compare(as_one_tensor(want), g, random_op(e.name)); !d.empty())
        failures.push_back(e.qualified_name + ": " + d);
      ++compared;
    } catch (const Error& err) {
      if (not_on_cuda_yet(e)) {
        ++not_yet;
        return;
      }
      failures.push_back(e.qualified_name + ": " + err.message());
    }
  });
  std::printf("%d samples compared, %d complex samples refused\n", compared, not_yet);
  std::ostringstream all;
  for (const std::string& f : failures) all << "\n  " << f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << compared << " samples differ:" << all.str();
  EXPECT_GT(compared, 300);
}

// What a call did: its error's type and text, or that it returned.
struct Outcome {
  bool ok = true;
  std::string type;
  std::string message;
};

template <typename Fn>
Outcome outcome_of(Fn&& fn) {
  try {
    (void)fn();
    return {};
  } catch (const Error& e) {
    return {false, e.type_name(), e.message()};
  }
}

// The text with the device's names as the CPU's, so that messages which
// name the tensors' device compare.
std::string as_on_cpu(std::string m) {
  const std::pair<std::string, std::string> names[] = {{", device='cuda:0'", ""}, {"cuda:0", "cpu"}};
  for (const auto& [from, to] : names) {
    for (std::size_t at = m.find(from); at != std::string::npos; at = m.find(from, at + to.size()))
      m.replace(at, from.size(), to);
  }
  return m;
}

// Both PyTorch's refusal of one dtype, `"kernel" not implemented for 'Long'`:
// the kernel names differ between devices ("mse_cpu", "mse_cuda"), as in PyTorch.
bool same_refusal(const std::string& cpu, const std::string& gpu) {
  const std::string mark = "\" not implemented for '";
  const std::size_t a = cpu.find(mark);
  const std::size_t b = gpu.find(mark);
  return a != std::string::npos && b != std::string::npos && cpu.substr(a) == gpu.substr(b);
}

// Issue 22, item 5: the backends must fail alike, not only compute alike.
// Each sample runs with bad inputs on both devices: its first tensor input
// given an extra trailing dim of 5 (broadcast and shape errors), then made
// int64 (dtype errors). Both devices must succeed, or fail with the same
// error type and the same text.
TEST_F(Cuda, BadInputsFailAsOnTheCpu) {
  const NoTf32 full_float32;
  std::vector<std::string> differ;
  std::vector<std::string> refused;  // dtypes without CUDA kernels (Issue 19)
  int compared_failures = 0;
  for_each_sample([&](const CatalogEntry& e, const Sample& s, const autograd::tensor_list& in) {
    if (in.empty()) return;
    for (int variant = 0; variant < 2; ++variant) {
      autograd::tensor_list bad = in;
      if (variant == 0) {
        std::vector<std::int64_t> shape(bad[0].sizes().begin(), bad[0].sizes().end());
        shape.push_back(5);
        bad[0] = randn(IntArrayRef(shape));
      } else {
        bad[0] = bad[0].to(ScalarType::kInt64);
      }
      const std::pair<Sample, autograd::tensor_list> moved_case = on_cuda(s, bad);  // before any in-place write
      const Outcome cpu = outcome_of([&] { return call_sample(e.qualified_name, s, bad, true, ScalarType::kFloat32); });
      const Outcome gpu = outcome_of([&] {
        return call_sample(e.qualified_name, moved_case.first, moved_case.second, true, ScalarType::kFloat32);
      });
      if (cpu.ok && gpu.ok) continue;
      if (!gpu.ok && not_on_cuda_yet(e)) {  // no CUDA kernel yet: nothing to compare
        refused.push_back(e.qualified_name + ": " + gpu.message);
        continue;
      }
      // A dtype the CUDA kernels have no loop for (an int64 convolution, as
      // in PyTorch) is refused with PyTorch's text where the CPU computes.
      if (cpu.ok && gpu.type == "RuntimeError" && gpu.message.find("\" not implemented for '") != std::string::npos) {
        refused.push_back(e.qualified_name + ": " + gpu.message);
        continue;
      }
      ++compared_failures;
      if (cpu.ok != gpu.ok || cpu.type != gpu.type ||
          (as_on_cpu(gpu.message) != cpu.message && !same_refusal(cpu.message, gpu.message))) {
        differ.push_back(e.qualified_name + (variant == 0 ? " (extra dim)" : " (int64)") +
                         ":\n    cpu:  " + (cpu.ok ? "returned" : cpu.type + ": " + cpu.message) +
                         "\n    cuda: " + (gpu.ok ? "returned" : gpu.type + ": " + gpu.message));
      }
    }
  });
  std::ostringstream all;
  for (const std::string& d : differ) all << "\n  " << d;
  EXPECT_TRUE(differ.empty()) << differ.size() << " of " << compared_failures << " failing calls differ:" << all.str();
  EXPECT_GT(compared_failures, 100);
  for (const std::string& r : refused) std::cout << "  refused on CUDA only: " << r << "\n";
}

TEST_F(Cuda, CreationFunctionsMakeDeviceTensors) {
  const Kwargs on_cuda = {{"device", Value(kCuda)}};
  EXPECT_EQ(call("torch.zeros", {Value(std::vector<std::int64_t>{2, 3})}, on_cuda).to_tensor().device(), kCuda);
  const Tensor a = call("torch.arange", {Value(5)}, on_cuda).to_tensor();
  EXPECT_EQ(a.device(), kCuda);
  EXPECT_EQ(host_values(a), (std::vector<double>{0, 1, 2, 3, 4}));
  const Tensor e = call("torch.eye", {Value(3)}, on_cuda).to_tensor();
  EXPECT_EQ(compare(eye(3), e, false), "");
  manual_seed(7);
  const Tensor r = call("torch.randn", {Value(std::vector<std::int64_t>{4})}, on_cuda).to_tensor();
  manual_seed(7);
  EXPECT_EQ(compare(randn({4}), r, false), "") << "random creation on the device follows the host generator";
}

TEST_F(Cuda, MixingDevicesIsPyTorchsError) {
  const Tensor a = ones({2, 2}).cuda();
  const Tensor b = ones({2, 2});
  try {
    (void)add(a, b);
    ADD_FAILURE() << "add of cuda and cpu tensors";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("Expected all tensors to be on the same device, but found at least two "
                                         "devices, cuda:0 and cpu!"),
              std::string::npos)
        << e.what();
  }
  // A 0-dim CPU tensor (a wrapped number) joins any device.
  EXPECT_EQ(host_values(add(a, two())), (std::vector<double>{3, 3, 3, 3}));
}

TEST_F(Cuda, TransfersKeepValuesForAnyLayoutAndDtype) {
  const Tensor x = arange(Scalar(24.0)).reshape({2, 3, 4});
  const Tensor t = x.permute({2, 0, 1});
  EXPECT_EQ(compare(t, t.cuda(), false), "");
  EXPECT_EQ(compare(t, t.cuda().cpu(), false), "");
  EXPECT_EQ(compare(t.to(ScalarType::kInt64), t.to(kCuda, ScalarType::kInt64), false), "");
  Tensor dst = zeros({4, 2, 3}).cuda();
  dst.copy_(t);
  EXPECT_EQ(compare(t, dst, false), "");
  // A non-contiguous destination on the host, from a non-contiguous device
  // source (issue 22, failure 2: the test called t() on a 3-D tensor).
  Tensor host = zeros({3, 2, 4}).permute({2, 1, 0});
  host.copy_(t.cuda().transpose(0, 1).transpose(0, 1));
  EXPECT_EQ(compare(t, host, false), "");
  Tensor back = zeros({3, 2, 4});
  back.copy_(t.cuda().permute({2, 1, 0}));
  EXPECT_EQ(compare(t.permute({2, 1, 0}), back, false), "");
  // Broadcasting source, device to device.
  Tensor d2 = zeros({3, 4}).cuda();
  d2.copy_(arange(Scalar(4.0)).cuda());
  EXPECT_EQ(compare(arange(Scalar(4.0)).expand({3, 4}), d2, false), "");
}

// torch.Tensor.cuda, which the catalog walk leaves to this test: good and
// bad devices, boxed and typed.
TEST_F(Cuda, TensorCudaChecksItsArguments) {
  const Tensor x = arange(Scalar(6.0)).reshape({2, 3});
  const Tensor y = call("torch.Tensor.cuda", {x}).to_tensor();
  EXPECT_EQ(y.device(), kCuda);
  EXPECT_EQ(compare(x, y, false), "");
  EXPECT_EQ(call("torch.Tensor.cuda", {y}).to_tensor().data_ptr(), y.data_ptr()) << "already there: itself";
  EXPECT_EQ(call("torch.Tensor.cuda", {x, Value("cuda:0")}, {{"non_blocking", Value(true)}}).to_tensor().device(),
            kCuda);
  try {
    (void)call("torch.Tensor.cuda", {x, Value(Device())});
    ADD_FAILURE() << "x.cuda('cpu')";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("Invalid device, must be cuda device"), std::string::npos) << e.what();
  }
  const int missing = cuda::device_count();
  try {
    (void)x.cuda(Device(DeviceType::kCUDA, missing));
    ADD_FAILURE() << "a device index past the last device";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid device ordinal " + std::to_string(missing)), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)call("torch.Tensor.cuda", {x, Value(std::vector<std::int64_t>{1})}), TypeError);
}

TEST_F(Cuda, PinnedNonBlockingCopiesAreVisibleAfterSynchronize) {
  const Tensor src = cuda::pin_memory(arange(Scalar(1 << 20)).to(ScalarType::kFloat32));
  const Tensor d = src.to(kCuda, std::nullopt, /*non_blocking=*/true);
  Tensor back = cuda::pin_memory(zeros({1 << 20}));
  back.copy_(d, /*non_blocking=*/true);
  cuda::synchronize();
  EXPECT_EQ(compare(src, back, false), "");
}

TEST_F(Cuda, TheCachingAllocatorReusesBlocksAndEmptiesItsCache) {
  cuda::synchronize();
  cuda::empty_cache();
  const DeviceMemoryStats before = cuda::memory_stats();
  {
    const Tensor a = empty({1 << 20}, std::nullopt, kCuda);
    const DeviceMemoryStats s = cuda::memory_stats();
    EXPECT_EQ(s.allocated_bytes, before.allocated_bytes + (4U << 20));
    EXPECT_GE(s.reserved_bytes, s.allocated_bytes);
  }
  const DeviceMemoryStats freed = cuda::memory_stats();
  EXPECT_EQ(freed.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(freed.reserved_bytes, before.reserved_bytes + (4U << 20)) << "a freed block stays cached";
  {
    const Tensor b = empty({1 << 20}, std::nullopt, kCuda);
    EXPECT_EQ(cuda::memory_stats().cache_hits, freed.cache_hits + 1);
    EXPECT_EQ(cuda::memory_stats().device_allocations, freed.device_allocations);
  }
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_stats().reserved_bytes, before.reserved_bytes);
  EXPECT_GE(cuda::memory_stats().peak_allocated_bytes, before.allocated_bytes + (4U << 20));
  try {
    (void)empty({std::int64_t{1} << 45}, std::nullopt, kCuda);  // 128 TiB
    ADD_FAILURE() << "a 128 TiB allocation";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA out of memory"), std::string::npos) << e.what();
  }
}

TEST_F(Cuda, WorkOnAnotherStreamIsOrderedWithinIt) {
  const Stream s = cuda::new_stream();
  Tensor y;
  const Tensor x = arange(Scalar(1 << 16)).to(kCuda, ScalarType::kFloat32);
  cuda::synchronize();
  {
    const cuda::StreamGuard guard(s);
    EXPECT_EQ(cuda::current_stream(), s);
    y = mul(add(x, x), x);
  }
  cuda::synchronize();
  const Tensor xc = x.cpu();
  EXPECT_EQ(compare(mul(add(xc, xc), xc), y, false), "");
}

TEST_F(Cuda, AutogradRunsThroughTheSameFormulas) {
  manual_seed(0);
  Tensor w = randn({3, 4}).to(kCuda);
  w.requires_grad_();
  Tensor wc = w.detach().cpu();
  wc.requires_grad_();
  const Tensor x = randn({5, 3});
  mul(relu(mm(x.cuda(), w)), two()).sum().backward();
  mul(relu(mm(x, wc)), two()).sum().backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().device(), kCuda);
  EXPECT_EQ(compare(wc.grad(), w.grad(), false), "");
}

// Note [cuDNN benchmark mode]: with torch.backends.cudnn.benchmark on, the
// first call of a shape times cuDNN's algorithms on its own tensors; the
// forward and both backwards still compute what the CPU computes, and the
// switch is only read (restored here).
TEST_F(Cuda, Conv2dInBenchmarkModeMatchesTheCpu) {
  const NoTf32 full_float32;
  const bool was = backends::cudnn_benchmark();
  backends::set_cudnn_benchmark(true);
  manual_seed(0);
  Tensor x = randn({2, 3, 9, 7});
  Tensor w = randn({4, 3, 3, 3});
  x.requires_grad_();
  w.requires_grad_();
  Tensor xd = x.detach().cuda();
  Tensor wd = w.detach().cuda();
  xd.requires_grad_();
  wd.requires_grad_();
  const Tensor g = randn({2, 4, 9, 7});
  for (int round = 0; round < 2; ++round) {  // the trials, then the cached choice
    const Tensor y = conv2d(x, w, std::nullopt, 1, IntArrayRef{1, 1});
    const Tensor yd = conv2d(xd, wd, std::nullopt, 1, IntArrayRef{1, 1});
    EXPECT_EQ(compare(y, yd, false), "") << "round " << round;
    y.backward(g);
    yd.backward(g.cuda());
    EXPECT_EQ(compare(x.grad(), xd.grad(), false), "") << "round " << round;
    EXPECT_EQ(compare(w.grad(), wd.grad(), false), "") << "round " << round;
  }
  EXPECT_TRUE(backends::cudnn_benchmark());
  backends::set_cudnn_benchmark(was);
}

// Note [Elementwise loop paths]: the flat path with its unrolled rounds and
// tail, and the rows path (a row or column broadcast, a slice of a wider
// tensor) and its fallbacks (a misaligned slice, an odd row length), in
// every dtype width (16-bit floats: 8 per vector, int8: 16), give the CPU's
// values exactly.
TEST_F(Cuda, ElementwiseLoopPathsGiveTheCpusValues) {
  manual_seed(0);
  struct Case {
    std::vector<std::int64_t> a, b;
    std::int64_t narrow_from = -1;  // a[:, from:from + 8] when >= 0
  };
  const std::vector<Case> cases = {
      {{4099}, {4099}},     // flat: rounds, remainder vectors and the tail
      {{1 << 20}, {1}},     // flat with a broadcast value
      {{6, 8}, {8}},        // rows: a bias over a matrix
      {{6, 8}, {6, 1}},     // rows: one value per row
      {{5, 12}, {8}, 4},    // rows: an aligned slice of a wider matrix
      {{5, 12}, {8}, 1},    // misaligned slice: the strided path
      {{6, 7}, {7}},        // odd rows: the strided path
      {{3, 4, 8}, {4, 1}},  // three merged dims: the strided path
  };
  for (const ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kInt32, ScalarType::kInt64,
                             ScalarType::kFloat16, ScalarType::kBFloat16, ScalarType::kInt16, ScalarType::kInt8}) {
    for (const Case& c : cases) {
      Tensor a = mul(randn(c.a), wrap_scalar(100.0)).to(t);
      const Tensor b = mul(randn(c.b), wrap_scalar(100.0)).to(t);
      if (c.narrow_from >= 0) a = a.narrow(1, c.narrow_from, 8);
      const Tensor ad = a.cuda();
      const Tensor bd = b.cuda();
      const std::string what =
          format_shape(a.sizes()) + " + " + format_shape(b.sizes()) + " " + std::string(dtype_name(t));
      EXPECT_EQ(compare(add(a, b), add(ad, bd), false), "") << what;
      EXPECT_EQ(compare(neg(a), neg(ad), false), "") << what;
      Tensor out = zeros(a.sizes(), t);
      out.copy_(b.expand(a.sizes()));  // addmm's bias copy
      Tensor outd = zeros(a.sizes(), t, kCuda);
      outd.copy_(bd.expand(a.sizes()));
      EXPECT_EQ(compare(out, outd, false), "") << what;
    }
  }
}

}  // namespace
}  // namespace wick::testing
