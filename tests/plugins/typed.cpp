// tests/plugins/typed.cpp - a plugin with a tensor subclass and a tensor-like type.
#include <wick/override.h>
#include <wick/plugin.h>

namespace {

class Thing final : public wick::TensorLike {
 public:
  explicit Thing(const wick::TypeInfo& type) : TensorLike(type) {}
  [[nodiscard]] std::string repr() const override { return "Thing()"; }
};

}  // namespace

WICK_PLUGIN("test_typed", "0.0.1", registrar) {
  auto& lib = registrar.library("testtyped");
  lib.register_type({.name = "TestTypedSub", .parent = "Tensor"});
  lib.register_type({.name = "TestTypedThing",
                     .handler = [](const wick::TorchFunctionCall&) -> wick::Value { return wick::NotImplemented; },
                     .constructor = [](const wick::TypeInfo& type, const std::vector<wick::Value>&,
                                       const wick::Kwargs&) -> wick::Value {
                       return wick::Value(std::shared_ptr<wick::Object>(std::make_shared<Thing>(type)));
                     }});
}
