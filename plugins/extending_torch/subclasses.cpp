// plugins/extending_torch/subclasses.cpp - the note's tensor subclasses.
/// \file
/// SubTensor, SubTensor2 (a child of SubTensor) and OtherSubTensor have no
/// handler: the default subclass behaviour returns the lowest subclass and
/// refuses unrelated ones. They have no constructor either, so, as
/// `class SubTensor(torch.Tensor): pass` in Python, they are built like
/// `torch.Tensor(...)`: `SubTensor([0])` is a float32 SubTensor([0.]).
/// LoggingTensor logs every call through wick::logging (level info) and defers
/// to the default behaviour, its `super().__torch_function__`.
#include <string>

#include <wick/log.h>
#include <wick/override.h>

#include "extending_torch.h"

namespace extending_torch {
namespace {

/// "func: add, args: (LoggingTensor([1., 2.]), 2), kwargs: None", as the note's
/// f-string prints `func.__name__`, `args!r` and `kwargs!r`.
std::string describe(const wick::TorchFunctionCall& call) {
  const std::string& op = call.op_name();
  std::string args = wick::Value::list(call.args.vec(), /*tuple=*/true).repr();
  std::string kwargs = call.kwargs.empty() ? "None" : wick::Value::dict(call.kwargs.vec()).repr();
  return "func: " + op.substr(op.rfind('.') + 1) + ", args: " + args + ", kwargs: " + kwargs;
}

}  // namespace

void register_subclasses(wick::Library& lib) {
  lib.register_type({
      .name = "LoggingTensor",
      .parent = "Tensor",
      .handler =
          [](const wick::TorchFunctionCall& call) {
            if (wick::logging::level() <= wick::logging::Level::kInfo) wick::logging::info(describe(call));
            return wick::default_torch_function(call);
          },
  });
  lib.register_type({.name = "SubTensor", .parent = "Tensor"});
  lib.register_type({.name = "SubTensor2", .parent = "SubTensor"});
  lib.register_type({.name = "OtherSubTensor", .parent = "Tensor"});
}

}  // namespace extending_torch
