// tests/fuzz/plugin/engine_plugin.cpp - a collective engine that moves nothing, for store_fuzz's rendezvous.
/// \file
/// Registers the engine "fuzzloop" for CPU tensors. Its collectives leave
/// the tensors as they are: store_fuzz needs an engine only so that
/// `init_process_group` gets past its backend check and runs the
/// rendezvous over a store whose values come from the fuzz input; no bytes
/// ever move between processes.
#include <wick/distributed_backend.h>
#include <wick/plugin.h>

namespace {

namespace dist = wick::distributed;

class LoopEngine final : public dist::Engine {
 public:
  explicit LoopEngine(const dist::EngineOptions& o) : Engine(o) {}
  void all_reduce(const wick::Tensor& /*tensor*/, dist::ReduceOp /*op*/) override {}
  void broadcast(const wick::Tensor& /*tensor*/, int /*root*/) override {}
  void reduce(const wick::Tensor& /*tensor*/, int /*root*/, dist::ReduceOp /*op*/) override {}
  void all_gather(const wick::Tensor& /*output*/, const wick::Tensor& /*input*/) override {}
  void gather(const wick::Tensor& /*output*/, const wick::Tensor& /*input*/, int /*root*/) override {}
  void scatter(const wick::Tensor& /*output*/, const wick::Tensor& /*input*/, int /*root*/) override {}
  void all_to_all(const wick::Tensor& /*output*/, const wick::Tensor& /*input*/,
                  const std::vector<std::int64_t>& /*output_counts*/,
                  const std::vector<std::int64_t>& /*input_counts*/) override {}
  void barrier() override {}
  void send(const wick::Tensor& /*tensor*/, int /*dst*/, int /*tag*/) override {}
  int recv(const wick::Tensor& /*tensor*/, int src, int /*tag*/) override { return src < 0 ? 0 : src; }
};

}  // namespace

WICK_PLUGIN("fuzz_engine", "1.0.0", registrar) {
  dist::register_engine(registrar, "fuzzloop", {wick::DeviceType::kCPU},
                        [](const dist::EngineOptions& o) { return std::make_unique<LoopEngine>(o); });
}
