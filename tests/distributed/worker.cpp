// tests/distributed/worker.cpp - one rank of a distributed test: `wick_dist_worker SCENARIO`, started N times by the tests.
/// \file
/// Each rank checks its own results against values it computes locally
/// (every rank's input is a function of its rank) and exits 0 when all
/// hold; a failed check prints "CHECK FAILED: ..." and exits 1. A fault
/// scenario prints "FAULT: <the error>" and exits 0 when the error came in
/// time and named the expected rank (tests/distributed/distributed_test.cpp
/// reads it). The environment is PyTorch's: MASTER_ADDR, MASTER_PORT, RANK,
/// WORLD_SIZE; WICK_TEST_TIMEOUT_MS bounds each collective.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>
#include <wick/cuda.h>
#include <wick/distributed.h>
#include <wick/loader.h>
#include <wick/nn_functional.h>
#include <wick/nn_linear.h>
#include <wick/nn_parallel.h>
#include <wick/ops.h>
#include <wick/optim.h>
#include <wick/random.h>


namespace dist = wick::distributed;
using wick::Scalar;
using wick::ScalarType;
using wick::Tensor;

namespace {

int g_failures = 0;
int g_rank = 0;
int g_world = 1;

void fail(const std::string& what) {
  std::fprintf(stderr, "CHECK FAILED (rank %d): %s\n", g_rank, what.c_str());
  ++g_failures;
}

void expect_same(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.dtype() != want.dtype() || got.sizes() != want.sizes()) {
    fail(what + ": dtype or shape differs");
    return;
  }
  const bool floating = wick::is_floating(want.dtype()) || wick::is_complex(want.dtype());
  const bool ok = floating ? wick::allclose(got.to(wick::is_complex(want.dtype()) ? ScalarType::kComplex128 : ScalarType::kFloat64),
                                            want.to(wick::is_complex(want.dtype()) ? ScalarType::kComplex128 : ScalarType::kFloat64), 1e-2,
                                            1e-2)
                           : wick::equal(got, want);
  if (!ok) {
    std::ostringstream os;
    os << what << ": got " << got << " want " << want;
    fail(os.str());
  }
}

template <class F>
void expect_error(F&& f, const std::string& contains, const std::string& what) {
  try {
    f();
  } catch (const wick::Error& e) {
    if (std::string(e.what()).find(contains) == std::string::npos) fail(what + ": wrong message: " + e.what());
    return;
  }
  fail(what + ": no error");
}

const std::vector<ScalarType> kDtypes = {ScalarType::kFloat32, ScalarType::kFloat64,   ScalarType::kFloat16,
                                         ScalarType::kBFloat16, ScalarType::kInt64,    ScalarType::kInt32,
                                         ScalarType::kInt16,   ScalarType::kInt8,      ScalarType::kUInt8,
                                         ScalarType::kBool,    ScalarType::kComplex64, ScalarType::kComplex128};

/// Rank q's input of `n` elements in dtype `t`: small values, so that
/// products of four ranks fit int8.
Tensor input_of(int q, ScalarType t, std::int64_t n = 6, int salt = 0) {
  Tensor base = wick::arange(n, ScalarType::kInt64).add(Scalar(q * 7 + salt * 3 + 1));
  if (t == ScalarType::kBool) return base.remainder(Scalar(2)).eq(Scalar(0));
  Tensor small = base.remainder(Scalar(3)).add(Scalar(1));
  if (wick::is_floating(t)) return small.to(t).mul(Scalar(0.5));
  if (wick::is_complex(t)) return wick::complex(small.to(ScalarType::kFloat32), base.remainder(Scalar(2)).to(ScalarType::kFloat32)).to(t);
  return small.to(t);
}

Tensor reduce_local(dist::ReduceOp op, ScalarType t, std::int64_t n = 6, int salt = 0) {
  Tensor acc = input_of(0, t, n, salt);
  for (int q = 1; q < g_world; ++q) {
    const Tensor x = input_of(q, t, n, salt);
    switch (op) {
      case dist::ReduceOp::kSum:
        acc = t == ScalarType::kBool ? acc.logical_or(x) : acc.add(x);
        break;
      case dist::ReduceOp::kAvg:
        acc = acc.add(x);
        break;
      case dist::ReduceOp::kProduct:
        acc = t == ScalarType::kBool ? acc.logical_and(x) : acc.mul(x);
        break;
      case dist::ReduceOp::kMin:
        acc = wick::minimum(acc, x);
        break;
      case dist::ReduceOp::kMax:
        acc = wick::maximum(acc, x);
        break;
      case dist::ReduceOp::kBand:
        acc = acc.bitwise_and(x);
        break;
      case dist::ReduceOp::kBor:
        acc = acc.bitwise_or(x);
        break;
      case dist::ReduceOp::kBxor:
        acc = acc.bitwise_xor(x);
        break;
    }
  }
  if (op == dist::ReduceOp::kAvg) acc = acc.div(Scalar(static_cast<double>(g_world))).to(t);
  return acc;
}

std::vector<dist::ReduceOp> ops_for(ScalarType t) {
  using R = dist::ReduceOp;
  if (wick::is_complex(t)) return {R::kSum, R::kProduct, R::kAvg};
  if (wick::is_floating(t)) return {R::kSum, R::kProduct, R::kMin, R::kMax, R::kAvg};
  return {R::kSum, R::kProduct, R::kMin, R::kMax, R::kBand, R::kBor, R::kBxor};
}

std::string label(const char* op, ScalarType t) { return std::string(op) + " " + std::string(wick::dtype_name(t)); }

void collectives_of(ScalarType t) {
  const int last = g_world - 1;
  for (const auto op : ops_for(t)) {
    Tensor x = input_of(g_rank, t);
    dist::all_reduce(x, {.op = op});
    expect_same(x, reduce_local(op, t), label("all_reduce", t) + " " + dist::reduce_op_name(op));
  }
  {
    Tensor x = input_of(g_rank, t);
    dist::reduce(x, last, {.op = dist::ReduceOp::kSum});
    if (g_rank == last) expect_same(x, reduce_local(dist::ReduceOp::kSum, t), label("reduce", t));
  }
  for (int root = 0; root < g_world; ++root) {
    Tensor x = input_of(g_rank, t);
    dist::broadcast(x, root);
    expect_same(x, input_of(root, t), label("broadcast", t) + " from " + std::to_string(root));
  }
  {
    std::vector<Tensor> out;
    for (int q = 0; q < g_world; ++q) out.push_back(wick::zeros({6}, t));
    dist::all_gather(out, input_of(g_rank, t));
    for (int q = 0; q < g_world; ++q) expect_same(out[static_cast<std::size_t>(q)], input_of(q, t), label("all_gather", t));
    Tensor flat = wick::zeros({g_world, 6}, t);
    dist::all_gather_into_tensor(flat, input_of(g_rank, t));
    for (int q = 0; q < g_world; ++q) expect_same(flat[q], input_of(q, t), label("all_gather_into_tensor", t));
  }
  {
    std::vector<Tensor> out;
    if (g_rank == last) {
      for (int q = 0; q < g_world; ++q) out.push_back(wick::zeros({6}, t));
    }
    dist::gather(input_of(g_rank, t), out, last);
    for (int q = 0; q < static_cast<int>(out.size()); ++q) expect_same(out[static_cast<std::size_t>(q)], input_of(q, t), label("gather", t));
  }
  {
    std::vector<Tensor> in;
    if (g_rank == 0) {
      for (int q = 0; q < g_world; ++q) in.push_back(input_of(q, t, 6, 5));
    }
    Tensor x = wick::zeros({6}, t);
    dist::scatter(x, in, 0);
    expect_same(x, input_of(g_rank, t, 6, 5), label("scatter", t));
  }
  if (!wick::is_complex(t) || true) {
    // reduce_scatter: rank q's input_list[r] = input_of(q + 10 r); rank r gets the sum over q.
    std::vector<Tensor> in;
    for (int r = 0; r < g_world; ++r) in.push_back(input_of(g_rank, t, 6, r));
    Tensor out = wick::zeros({6}, t);
    dist::reduce_scatter(out, in, {.op = dist::ReduceOp::kSum});
    expect_same(out, reduce_local(dist::ReduceOp::kSum, t, 6, g_rank), label("reduce_scatter", t));
  }
  {
    // all_to_all with uneven sizes: rank r sends rank q a tensor of r + q + 1 elements.
    std::vector<Tensor> in;
    std::vector<Tensor> out;
    for (int q = 0; q < g_world; ++q) {
      in.push_back(input_of(g_rank * 10 + q, t, g_rank + q + 1));
      out.push_back(wick::zeros({q + g_rank + 1}, t));
    }
    dist::all_to_all(out, in);
    for (int q = 0; q < g_world; ++q)
      expect_same(out[static_cast<std::size_t>(q)], input_of(q * 10 + g_rank, t, q + g_rank + 1), label("all_to_all", t));
  }
  {
    Tensor in = input_of(g_rank, t, 2 * g_world);
    Tensor out = wick::zeros({2 * g_world}, t);
    dist::all_to_all_single(out, in);
    for (int q = 0; q < g_world; ++q)
      expect_same(out.narrow(0, 2 * q, 2), input_of(q, t, 2 * g_world).narrow(0, 2 * g_rank, 2), label("all_to_all_single", t));
  }
}

void scenario_collectives() {
  for (const ScalarType t : kDtypes) collectives_of(t);
  dist::barrier();
  // Strided tensors: a transposed view is reduced in place.
  Tensor m = wick::arange(6, ScalarType::kFloat32).view({2, 3}).add(Scalar(g_rank));
  Tensor v = m.t();
  dist::all_reduce(v);
  Tensor want = wick::arange(6, ScalarType::kFloat32).view({2, 3}).mul(Scalar(g_world)).add(Scalar(g_world * (g_world - 1) / 2.0));
  expect_same(m, want, "all_reduce of a transposed view");
  // Async: several in flight, waited in reverse order.
  std::vector<Tensor> xs;
  std::vector<dist::WorkHandle> works;
  for (int i = 0; i < 5; ++i) {
    xs.push_back(wick::full({1000}, Scalar(static_cast<double>(g_rank + i)), ScalarType::kFloat64));
    works.push_back(dist::all_reduce(xs.back(), {.async_op = true}));
    if (works.back() == nullptr) fail("async all_reduce returned no Work");
  }
  for (int i = 4; i >= 0; --i) {
    works[static_cast<std::size_t>(i)]->wait();
    if (!works[static_cast<std::size_t>(i)]->is_completed() || !works[static_cast<std::size_t>(i)]->is_success()) fail("Work not completed");
    const double want_v = g_world * (g_world - 1) / 2.0 + g_world * i;
    expect_same(xs[static_cast<std::size_t>(i)], wick::full({1000}, Scalar(want_v), ScalarType::kFloat64), "async all_reduce");
  }
  if (dist::barrier({.async_op = true}) == nullptr) fail("async barrier returned no Work");
  // The boxed call reaches the same operator.
  Tensor b = wick::ones({3});
  const wick::Value w = wick::call("torch.distributed.all_reduce", {wick::Value(b)}, {{"op", wick::Value(std::string("max"))}});
  if (!w.is_none()) fail("a synchronous boxed all_reduce returns None");
  expect_same(b, wick::ones({3}), "boxed all_reduce max");
  // Point to point: a ring, then everyone sends to rank 0, which receives from any rank.
  const int next = (g_rank + 1) % g_world;
  const int prev = (g_rank + g_world - 1) % g_world;
  Tensor got = wick::zeros({4}, ScalarType::kInt64);
  auto s = dist::isend(input_of(g_rank, ScalarType::kInt64, 4), next);
  auto r = dist::irecv(got, prev);
  s->wait();
  r->wait();
  expect_same(got, input_of(prev, ScalarType::kInt64, 4), "isend/irecv ring");
  if (g_rank == 0) {
    std::set<int> senders;
    for (int i = 1; i < g_world; ++i) {
      Tensor t = wick::zeros({2}, ScalarType::kFloat32);
      const int from = dist::recv(t, -1, nullptr, 7);
      senders.insert(from);
      expect_same(t, wick::full({2}, Scalar(static_cast<double>(from)), ScalarType::kFloat32), "recv from any rank");
    }
    if (static_cast<int>(senders.size()) != g_world - 1) fail("recv from any rank: not every sender was seen");
  } else {
    dist::send(wick::full({2}, Scalar(static_cast<double>(g_rank)), ScalarType::kFloat32), 0, nullptr, 7);
  }
  // Blocking send/recv between 0 and 1.
  if (g_rank == 0) {
    dist::send(wick::arange(5, ScalarType::kFloat64), 1);
  } else if (g_rank == 1) {
    Tensor t = wick::zeros({5}, ScalarType::kFloat64);
    if (dist::recv(t, 0) != 0) fail("recv names its sender");
    expect_same(t, wick::arange(5, ScalarType::kFloat64), "send/recv");
  }
  dist::barrier();
}

void scenario_subgroup() {
  // Ranks 1 and the last form a group; everyone calls new_group.
  const std::vector<int> members = {1, g_world - 1};
  auto g = dist::new_group(members);
  const bool member = g_rank == 1 || g_rank == g_world - 1;
  if (member != (g != nullptr)) fail("new_group: membership");
  auto everyone = dist::new_group();
  if (everyone == nullptr || everyone->size() != g_world) fail("new_group(): every rank");
  if (g != nullptr) {
    if (g->size() != 2 || g->rank() != (g_rank == 1 ? 0 : 1)) fail("new_group: size or rank");
    Tensor x = wick::full({3}, Scalar(static_cast<double>(g_rank)));
    dist::all_reduce(x, {.group = g});
    expect_same(x, wick::full({3}, Scalar(1.0 + g_world - 1)), "all_reduce in a subgroup");
    Tensor y = wick::full({2}, Scalar(static_cast<double>(g_rank)));
    dist::broadcast(y, g_world - 1, {.group = g});  // src is a global rank
    expect_same(y, wick::full({2}, Scalar(static_cast<double>(g_world - 1))), "broadcast in a subgroup");
    expect_error([&] { dist::broadcast(y, 0, {.group = g}); }, "is not part of the group", "src outside the group");
    std::vector<Tensor> out = {wick::zeros({1}), wick::zeros({1})};
    dist::all_gather(out, wick::full({1}, Scalar(static_cast<double>(g_rank))), {.group = g});
    expect_same(out[1], wick::full({1}, Scalar(static_cast<double>(g_world - 1))), "all_gather in a subgroup");
  }
  Tensor z = wick::ones({2});
  dist::all_reduce(z, {.group = everyone});
  expect_same(z, wick::full({2}, Scalar(static_cast<double>(g_world))), "all_reduce in a group of everyone");
  dist::destroy_process_group(everyone);
  dist::barrier();
}

void scenario_errors() {
  Tensor x = wick::ones({4});
  std::vector<Tensor> short_list = {wick::zeros({4})};
  expect_error([&] { dist::all_gather(short_list, x); }, "one tensor per rank", "all_gather list size");
  std::vector<Tensor> wrong = {};
  for (int q = 0; q < g_world; ++q) wrong.push_back(wick::zeros({5}));
  expect_error([&] { dist::all_gather(wrong, x); }, "elements", "all_gather element count");
  Tensor ints = wick::ones({4}, ScalarType::kInt64);
  expect_error([&] { dist::all_reduce(ints, {.op = dist::ReduceOp::kAvg}); }, "AVG", "avg of integers");
  Tensor c = wick::ones({2}, ScalarType::kComplex64);
  expect_error([&] { dist::all_reduce(c, {.op = dist::ReduceOp::kMax}); }, "not supported", "max of complex");
  Tensor f = wick::ones({2});
  expect_error([&] { dist::all_reduce(f, {.op = dist::ReduceOp::kBand}); }, "not supported", "band of floats");
  expect_error([&] { dist::broadcast(x, g_world); }, "is not part of the group", "broadcast src out of range");
  if (g_rank != 0) {
    std::vector<Tensor> list;
    for (int q = 0; q < g_world; ++q) list.push_back(wick::zeros({4}));
    expect_error([&] { dist::scatter(x, list, 0); }, "must NOT be specified", "scatter_list on a non-source rank");
  }
  expect_error([&] { wick::call("torch.distributed.all_reduce", {wick::Value(x)}, {{"group", wick::Value(3)}}); },
               "argument 'group' must be ProcessGroup", "group of the wrong type");
  expect_error([&] { wick::call("torch.distributed.all_reduce", {wick::Value(x)}, {{"op", wick::Value(std::string("median"))}}); },
               "Unknown ReduceOp", "unknown op");
  expect_error([] { dist::init_process_group("gloo"); }, "trying to initialize the default process group twice!", "init twice");
  expect_error([] { (void)dist::new_group({0, 0}); }, "listed twice", "new_group with a repeated rank");
  // After the errors, the group still works.
  Tensor y = wick::ones({4});
  dist::all_reduce(y);
  expect_same(y, wick::full({4}, Scalar(static_cast<double>(g_world))), "all_reduce after argument errors");
}

/// Runs a collective that must fail; prints the error for the test to read.
template <class F>
void expect_fault(F&& f, const std::chrono::milliseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  try {
    f();
  } catch (const wick::Error& e) {
    const auto took = std::chrono::steady_clock::now() - start;
    std::printf("FAULT: %s\n", e.what());
    std::fflush(stdout);
    if (took > bound) fail("the error came after " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()) + " ms");
    return;
  }
  fail("the collective did not fail");
}

/// A group of every rank whose collectives time out after WICK_TEST_TIMEOUT_MS
/// (the default group keeps a long timeout, so that slow starts, under the
/// sanitizers say, never fail the rendezvous).
std::shared_ptr<dist::ProcessGroup> fault_group() {
  const char* ms = std::getenv("WICK_TEST_TIMEOUT_MS");
  return dist::new_group({}, std::chrono::milliseconds(ms != nullptr ? std::atoi(ms) : 5000));
}

void scenario_die() {
  auto g = fault_group();
  dist::barrier();
  if (g_rank == 1) std::_Exit(9);  // dies without a word
  Tensor x = wick::ones({16});
  expect_fault([&] { dist::all_reduce(x, {.group = g}); }, std::chrono::seconds(30));
}

void scenario_hang() {
  auto g = fault_group();
  dist::barrier();
  if (g_rank == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(120));  // the test kills it
    return;
  }
  Tensor x = wick::ones({16});
  expect_fault([&] { dist::all_reduce(x, {.group = g}); }, std::chrono::seconds(30));
}

void scenario_mismatch() {
  auto g = fault_group();
  Tensor x = wick::ones({g_rank == 1 ? 5 : 4});
  expect_fault([&] { dist::all_reduce(x, {.group = g}); }, std::chrono::seconds(30));
}



// --- DistributedDataParallel: gradients equal to one process's over the whole batch ---

struct Mlp : wick::nn::Callable<Mlp> {
  Mlp() {
    fc1 = register_module("fc1", wick::nn::Linear(4, 8));
    fc2 = register_module("fc2", wick::nn::Linear(8, 3));
  }
  Tensor forward(const Tensor& x) { return fc2->forward(wick::tanh(fc1->forward(x))); }
  wick::nn::Linear fc1{nullptr}, fc2{nullptr};
};

std::shared_ptr<Mlp> make_mlp() {
  wick::manual_seed(0);
  auto m = std::make_shared<Mlp>();
  m->to(ScalarType::kFloat64);
  return m;
}

/// The global batch `which` (the same on every rank).
std::pair<Tensor, Tensor> global_batch(int which, std::int64_t n) {
  wick::manual_seed(static_cast<std::uint64_t>(100 + which));
  Tensor x = wick::randn({n, 4}, ScalarType::kFloat64);
  Tensor y = wick::randint(0, 3, {n});
  return {x, y};
}

Tensor shard(const Tensor& t) {
  const std::int64_t per = t.size(0) / g_world;
  return t.narrow(0, g_rank * per, per);
}

std::vector<Tensor> grads_of(const std::shared_ptr<Mlp>& m) {
  std::vector<Tensor> out;
  for (const Tensor& p : m->parameters()) out.push_back(p.grad().defined() ? p.grad().clone() : Tensor());
  return out;
}

void expect_grads(const std::vector<Tensor>& got, const std::vector<Tensor>& want, const std::string& what) {
  if (got.size() != want.size()) return fail(what + ": parameter count");
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!got[i].defined() || !want[i].defined()) {
      fail(what + ": a gradient is missing");
      continue;
    }
    const double diff = got[i].sub(want[i]).abs().max().item<double>();
    if (!(diff <= 1e-6)) fail(what + ": gradient " + std::to_string(i) + " differs by " + std::to_string(diff));
  }
}

// CUDA tensors through the nccl engine (one rank per GPU), checked against the CPU.
void scenario_cuda() {
  const wick::Device gpu = wick::Device::parse("cuda:" + std::to_string(g_rank % std::max(1, wick::cuda::device_count())));
  wick::cuda::set_device(gpu.index());
  for (const ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kFloat16, ScalarType::kBFloat16,
                             ScalarType::kInt64, ScalarType::kInt32, ScalarType::kUInt8}) {
    for (const auto op : {dist::ReduceOp::kSum, dist::ReduceOp::kMax, dist::ReduceOp::kMin}) {
      Tensor x = input_of(g_rank, t).to(gpu);
      dist::all_reduce(x, {.op = op});
      expect_same(x.cpu(), reduce_local(op, t), label("cuda all_reduce", t));
    }
    Tensor b = input_of(g_rank, t).to(gpu);
    dist::broadcast(b, 0);
    expect_same(b.cpu(), input_of(0, t), label("cuda broadcast", t));
    Tensor flat = wick::zeros({g_world, 6}, t).to(gpu);
    dist::all_gather_into_tensor(flat, input_of(g_rank, t).to(gpu));
    for (int q = 0; q < g_world; ++q) expect_same(flat.cpu()[q], input_of(q, t), label("cuda all_gather_into_tensor", t));
  }
  dist::barrier();
}

void scenario_ddp() {
  const std::int64_t n = 24;  // divides among 1, 2, 3 and 4 ranks
  // One process, the whole batch: the reference.
  auto ref = make_mlp();
  const auto batch0 = global_batch(0, n);
  const Tensor x0 = batch0.first;
  const Tensor y0 = batch0.second;
  wick::nn::functional::cross_entropy((*ref)(x0), y0).backward();
  const std::vector<Tensor> want = grads_of(ref);
  const auto batch1 = global_batch(1, n);
  const Tensor x1 = batch1.first;
  const Tensor y1 = batch1.second;
  wick::nn::functional::cross_entropy((*ref)(x1), y1).backward();
  const std::vector<Tensor> want_two = grads_of(ref);
  wick::optim::SGD ref_opt(ref->parameters(), {.lr = 0.1});
  ref_opt.step();

  for (const double cap : {25.0, 0.0001}) {
    const std::string tag = cap < 1 ? " (a bucket per parameter)" : "";
    auto model = make_mlp();
    {  // other ranks start elsewhere: the wrapper broadcasts rank 0's parameters
      const wick::NoGradGuard no_grad;
      for (Tensor p : model->parameters()) p.add_(Scalar(static_cast<double>(g_rank)));
    }
    wick::nn::DistributedDataParallel ddp(model, {.bucket_cap_mb = cap});
    if (cap < 1 && ddp.reducer().bucket_sizes().size() != 4) fail("bucket_cap_mb: expected 4 buckets");
    wick::nn::functional::cross_entropy(ddp(shard(x0)), shard(y0)).backward();
    expect_grads(grads_of(model), want, "DDP gradients" + tag);
    // Gradient accumulation: the first micro-batch under no_sync, the second synchronised.
    for (Tensor p : model->parameters()) p.mutable_grad() = Tensor();
    {
      auto guard = ddp.no_sync();
      wick::nn::functional::cross_entropy(ddp(shard(x0)), shard(y0)).backward();
    }
    wick::nn::functional::cross_entropy(ddp(shard(x1)), shard(y1)).backward();
    expect_grads(grads_of(model), want_two, "DDP with no_sync" + tag);
    wick::optim::SGD opt(model->parameters(), {.lr = 0.1});
    opt.step();
    const auto ps = model->parameters();
    const auto rs = ref->parameters();
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (!(ps[i].sub(rs[i]).abs().max().item<double>() <= 1e-6)) fail("DDP step" + tag + ": parameters differ from one process's");
    }
  }
  // A parameter left out of the loss: the next forward says so.
  auto model = make_mlp();
  wick::nn::DistributedDataParallel ddp(model);
  ddp(shard(x0));
  wick::tanh(model->fc1->forward(shard(x0))).sum().backward();  // fc2 gets no gradient
  expect_error([&] { ddp(shard(x0)); }, "Expected to have finished reduction in the prior iteration", "unused parameters");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: wick_dist_worker SCENARIO\n");
    return 2;
  }
  const std::string scenario = argv[1];
  try {
    wick::init();
    dist::InitOptions options;
    options.timeout = std::chrono::seconds(120);
    if (scenario == "init_only") {
      // The rendezvous itself is under test: its timeout is the test's.
      if (const char* ms = std::getenv("WICK_TEST_TIMEOUT_MS")) options.timeout = std::chrono::milliseconds(std::atoi(ms));
      dist::init_process_group("gloo", options);
      dist::barrier();
      dist::destroy_process_group();
      return 0;
    }
    dist::init_process_group(scenario == "cuda" ? "cpu:gloo,cuda:nccl" : "gloo", options);
    g_rank = dist::get_rank();
    g_world = dist::get_world_size();
    if (scenario == "collectives") {
      scenario_collectives();
    } else if (scenario == "subgroup") {
      scenario_subgroup();
    } else if (scenario == "errors") {
      scenario_errors();
    } else if (scenario == "die") {
      scenario_die();
    } else if (scenario == "hang") {
      scenario_hang();
    } else if (scenario == "mismatch") {
      scenario_mismatch();
    } else if (scenario == "ddp") {
      scenario_ddp();
    } else if (scenario == "cuda") {
      scenario_cuda();
    } else {
      std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
      return 2;
    }
    if (scenario != "die" && scenario != "hang" && scenario != "mismatch") dist::destroy_process_group();
  } catch (const std::exception& e) {
    std::printf("ERROR: %s\n", e.what());
    std::fprintf(stderr, "rank %d: uncaught: %s\n", g_rank, e.what());
    return 3;
  }
  return g_failures == 0 ? 0 : 1;
}
