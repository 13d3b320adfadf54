// tests/distributed/collective_ops_test.cpp - the collectives as catalog operators: listed, overridable, typed errors without a group.
/// \file
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/autograd/test_util.h"
#include "wick/catalog.h"
#include "wick/distributed_backend.h"
#include "wick/opcheck.h"
#include "wick/override.h"

namespace wick::testing {
namespace {

const std::vector<std::string> kCollectives = {
    "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "gather", "scatter", "reduce_scatter",
    "all_to_all", "all_to_all_single", "barrier", "send", "recv", "isend", "irecv"};

TEST(CollectiveOps, AreListedAsOverridableOperators) {
  const auto all = get_overridable_functions();
  ASSERT_TRUE(all.count("torch.distributed"));
  const auto& names = all.at("torch.distributed");
  for (const std::string& c : kCollectives)
    EXPECT_NE(std::find(names.begin(), names.end(), "torch.distributed." + c), names.end()) << c;
  EXPECT_EQ(python_signature("torch.distributed.all_reduce"), "(tensor, op='sum', group=None, async_op=False)");
}

TEST(CollectiveOps, WithoutAProcessGroupTheyFailAsPyTorchDoes) {
  ASSERT_FALSE(distributed::is_initialized());
  Tensor x = ones({3});
  WICK_EXPECT_THROW_MSG(distributed::all_reduce(x), RuntimeError,
                        "Default process group has not been initialized, please make sure to call init_process_group.");
  WICK_EXPECT_THROW_MSG(call("torch.distributed.barrier", {}), RuntimeError, "Default process group has not been initialized");
  EXPECT_THROW((void)distributed::get_rank(), RuntimeError);
  EXPECT_FALSE(distributed::is_initialized());
  EXPECT_THROW((void)distributed::reduce_op_from_name("median"), ValueError);
  EXPECT_EQ(distributed::reduce_op_from_name("ReduceOp.MAX"), distributed::ReduceOp::kMax);
}

TEST(CollectiveOps, TensorLikesOverrideThem) {
  std::vector<std::string> seen;
  Library lib("collective_override_test");
  lib.register_type({.name = "TDistLogged", .parent = "Tensor", .handler = [&](const TorchFunctionCall& c) -> Value {
                       seen.push_back(c.op_name());
                       if (c.op_name() == "torch.distributed.all_reduce") return Value(std::string("handled"));
                       return default_torch_function(c);
                     }});
  Tensor x = as_subclass(ones({2}), find_type("TDistLogged"));
  // No process group exists: only the override can answer.
  EXPECT_EQ(call("torch.distributed.all_reduce", {x}, {{"op", Value(std::string("max"))}}).to_string(), "handled");
  EXPECT_EQ(distributed::ops::all_reduce(x).to_string(), "handled");
  EXPECT_EQ(seen, (std::vector<std::string>{"torch.distributed.all_reduce", "torch.distributed.all_reduce"}));
  // Declining falls through to the kernel, which needs a group.
  EXPECT_THROW(call("torch.distributed.broadcast", {x, Value(0)}), RuntimeError);
  EXPECT_EQ(seen.back(), "torch.distributed.broadcast");
}

TEST(CollectiveOps, AGroupOfOneRunsEveryCollectiveInThisProcess) {
  const auto engines = distributed::registered_engines();
  if (std::none_of(engines.begin(), engines.end(), [](const std::string& e) { return e.starts_with("gloo:"); }))
    GTEST_SKIP() << "no gloo engine (built without Gloo)";
  distributed::init_process_group("gloo", {.store = std::make_shared<distributed::HashStore>(), .rank = 0, .world_size = 1,
                                           .timeout = std::chrono::seconds(30)});
  struct Leave {
    ~Leave() { distributed::destroy_process_group(); }
  } leave;
  EXPECT_EQ(distributed::get_world_size(), 1);
  EXPECT_EQ(distributed::get_backend(), "gloo");
  Tensor x = arange(6, ScalarType::kFloat32);
  distributed::all_reduce(x, {.op = distributed::ReduceOp::kAvg});
  EXPECT_TRUE(allclose(x, arange(6, ScalarType::kFloat32)));
  distributed::broadcast(x, 0);
  std::vector<Tensor> gathered = {zeros({6})};
  distributed::all_gather(gathered, x);
  EXPECT_TRUE(allclose(gathered[0], x));
  Tensor part = zeros({6});
  distributed::reduce_scatter(part, {x});
  EXPECT_TRUE(allclose(part, x));
  Tensor swapped = zeros({6});
  distributed::all_to_all_single(swapped, x);
  EXPECT_TRUE(allclose(swapped, x));
  auto work = distributed::barrier({.async_op = true});
  ASSERT_NE(work, nullptr);
  work->wait();
  EXPECT_TRUE(work->is_success());
  EXPECT_EQ(work->op_name(), "torch.distributed.barrier");
  // With a group the checks run: no check of a collective fails.
  for (const char* c : {"all_reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all_single"}) {
    for (const CheckResult& r : opcheck(std::string("torch.distributed.") + c))
      EXPECT_NE(r.status, CheckStatus::kFailed) << r.op << " " << r.check << ": " << r.message;
  }
  WICK_EXPECT_THROW_MSG(distributed::init_process_group("gloo", {.store = std::make_shared<distributed::HashStore>(), .rank = 0,
                                                                 .world_size = 1}),
                        RuntimeError, "trying to initialize the default process group twice!");
}

}  // namespace
}  // namespace wick::testing
