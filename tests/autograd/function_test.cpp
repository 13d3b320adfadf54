// tests/autograd/function_test.cpp - custom Functions: the context API, the note's rules and their errors.
/// \file
/// The note's own examples (LinearFunction, MulConstant, Linear) live in the
/// bundled plugin and are tested in extending_autograd_test.cpp.
#include "tests/autograd/test_util.h"
#include "wick/autograd_function.h"
#include "wick/forward_ad.h"
#include "wick/gradcheck.h"

namespace wick::testing {
namespace {

using autograd::AutogradContext;
using autograd::Function;
using autograd::tensor_list;

class CustomFunction : public AutogradTest {};

// Weighted sum of a list plus scale * x; records what forward saw.
struct Mixed : Function<Mixed> {
  static inline bool saw_grad_mode = true;
  static inline bool saw_requires_grad = true;
  static Tensor forward(AutogradContext* ctx, const std::vector<Tensor>& xs, double scale, std::string_view tag,
                        Tensor x) {
    saw_grad_mode = autograd::GradMode::is_enabled();
    saw_requires_grad = x.requires_grad();
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["tag"] = std::string(tag);
    Tensor acc = x * scale;
    for (const Tensor& t : xs) acc = acc + t;
    return acc;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    const double scale = ctx->saved_data["scale"].to_double();
    EXPECT_EQ(ctx->saved_data["tag"].to_string(), "mix");
    // slots: xs[0], xs[1], scale, tag, x
    tensor_list out(5);
    for (std::size_t i = 0; i < 2; ++i)
      if (ctx->needs_input_grad(i)) out[i] = g[0];
    EXPECT_FALSE(ctx->needs_input_grad(2));
    EXPECT_FALSE(ctx->needs_input_grad(3));
    if (ctx->needs_input_grad(4)) out[4] = g[0] * scale;
    out.emplace_back();  // a trailing undefined gradient is allowed
    return out;
  }
};

TEST_F(CustomFunction, AnyArgumentsAndInputSlots) {
  Tensor a = vec({1, 2}).requires_grad_();
  Tensor b = vec({3, 4});
  Tensor x = vec({5, 6}).requires_grad_();
  Tensor y = Mixed::apply(std::vector<Tensor>{a, b}, 3.0, "mix", x);
  EXPECT_FALSE(Mixed::saw_grad_mode);
  EXPECT_FALSE(Mixed::saw_requires_grad);  // forward sees detached inputs
  expect_near(y, {19, 24});
  EXPECT_EQ(y.grad_fn()->name(), "MixedBackward");
  y.sum().backward();
  expect_near(a.grad(), {1, 1});
  expect_near(x.grad(), {3, 3});
  EXPECT_FALSE(b.grad().defined());
}

struct TooMany : Function<TooMany> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], g[0]}; }
};
struct WrongShape : Function<WrongShape> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
  static tensor_list backward(AutogradContext*, tensor_list) { return {ones({3, 4}, ScalarType::kFloat64)}; }
};
struct GradForScalar : Function<GradForScalar> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 2; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], g[0]}; }
};

TEST_F(CustomFunction, BackwardResultErrorsNameTheFunction) {
  Tensor x = vec({1, 2}).requires_grad_();
  WICK_EXPECT_THROW_MSG(TooMany::apply(x).sum().backward(), RuntimeError,
                        "function TooManyBackward returned an incorrect number of gradients (expected 1, got 2)");
  WICK_EXPECT_THROW_MSG(WrongShape::apply(x).sum().backward(), RuntimeError,
                        "Function WrongShapeBackward returned an invalid gradient at index 0 - got [3, 4] but "
                        "expected shape compatible with [2]");
  WICK_EXPECT_THROW_MSG(GradForScalar::apply(x, 1.0).sum().backward(), RuntimeError,
                        "returned a gradient different than None at position 2");
}

struct Square : Function<Square> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * x * 2};
  }
};

TEST_F(CustomFunction, SavedInputModifiedInPlace) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor h = x * 1;
  Tensor y = Square::apply(h);
  h.add_(vec({1, 1}));
  WICK_EXPECT_THROW_MSG(y.sum().backward(), RuntimeError, "which is saved by SquareBackward, is at version 1; expected version 0");
}

TEST_F(CustomFunction, DoubleBackwardThroughSavedTensors) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor y = Square::apply(x);
  tensor_list g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_near(g[0], {2, 4, 6});
  tensor_list gg = autograd::grad({g[0].sum()}, {x});
  expect_near(gg[0], {2, 2, 2});  // the saved input carries its history
  EXPECT_TRUE(autograd::gradgradcheck([](const tensor_list& in) { return Square::apply(in[0]); },
                                      {drandn({4})}));
}

// Stashes its input in saved_data: gradients do not flow through it.
struct SquareStash : Function<SquareStash> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->saved_data["x"] = x;
    return x * x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    return {g[0] * ctx->saved_data["x"].to_tensor() * 2};
  }
};

TEST_F(CustomFunction, SavedDataHasNoHistory) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  tensor_list g = autograd::grad({SquareStash::apply(x).sum()}, {x}, {}, std::nullopt, true);
  expect_near(g[0], {2, 4, 6});
  // The stashed x has no history and the incoming gradient is a constant, so
  // the gradient is a constant too (save_for_backward keeps history: see above).
  EXPECT_FALSE(g[0].requires_grad());
  Tensor y = SquareStash::apply(x);
  tensor_list g2 = autograd::grad({(y * y).sum()}, {x}, {}, std::nullopt, true);
  expect_near(g2[0], {4, 32, 108});  // 2y * 2x
  // d/dx of 4·y·x_stashed flows only through y (x_stashed is a constant):
  // 4·x_stashed · dy/dx = 8x², not the 12x² of d(4x³)/dx.
  tensor_list gg = autograd::grad({g2[0].sum()}, {x});
  expect_near(gg[0], {8, 32, 72});
}

struct OnceSquare : Function<OnceSquare> {
  static constexpr bool once_differentiable = true;
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    EXPECT_FALSE(autograd::GradMode::is_enabled());
    return {g[0] * ctx->get_saved_variables()[0] * 2};
  }
};

TEST_F(CustomFunction, OnceDifferentiable) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = OnceSquare::apply(x);
  tensor_list g = autograd::grad({(y * y).sum()}, {x}, {}, std::nullopt, true);
  expect_near(g[0], {4, 32});  // 2y * 2x
  ASSERT_TRUE(g[0].requires_grad());
  WICK_EXPECT_THROW_MSG((void)autograd::grad({g[0].sum()}, {x}), RuntimeError,
                        "trying to differentiate twice a function that was marked with @once_differentiable");
  OnceSquare::apply(x).sum().backward();  // once is fine
  expect_near(x.grad(), {2, 4});
}

struct MulInPlace : Function<MulInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double k) {
    x.mul_(wrap_scalar(Scalar(k)));
    ctx->mark_dirty({x});
    ctx->saved_data["k"] = k;
    return x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    return {g[0] * ctx->saved_data["k"].to_double(), Tensor()};
  }
};

TEST_F(CustomFunction, MarkDirty) {
  Tensor leaf = vec({1, 2}).requires_grad_();
  Tensor h = leaf * 1;
  Tensor y = MulInPlace::apply(h, 3.0);
  EXPECT_TRUE(y.is_same(h));  // the input itself comes back, with new history
  EXPECT_EQ(h.grad_fn()->name(), "MulInPlaceBackward");
  expect_near(h, {3, 6});
  (h * h).sum().backward();
  expect_near(leaf.grad(), {18, 36});
  WICK_EXPECT_THROW_MSG(MulInPlace::apply(leaf, 2.0), RuntimeError,
                        "a leaf Variable that requires grad is being used in an in-place operation");
}

struct SortLike : Function<SortLike> {
  static std::tuple<Tensor, Tensor> forward(AutogradContext* ctx, Tensor x) {
    Tensor idx = x.to(ScalarType::kInt64);
    Tensor flag = x * 0;
    ctx->mark_non_differentiable({flag});
    return {x * 2, idx};
  }
  static tensor_list backward(AutogradContext*, tensor_list g) {
    EXPECT_FALSE(g[1].defined() && values(g[1]) != std::vector<double>(2, 0.0));
    return {g[0] * 2};
  }
};

TEST_F(CustomFunction, TupleOutputsAndNonDifferentiable) {
  Tensor x = vec({1.5, 2.5}).requires_grad_();
  auto [y, idx] = SortLike::apply(x);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(idx.requires_grad());  // integer outputs never require grad
  y.sum().backward();
  expect_near(x.grad(), {2, 2});
}

struct NoMaterialize : Function<NoMaterialize> {
  static inline bool got_undefined = false;
  static std::vector<Tensor> forward(AutogradContext* ctx, Tensor x) {
    ctx->set_materialize_grads(false);
    return {x * 2, x * 3};
  }
  static tensor_list backward(AutogradContext*, tensor_list g) {
    got_undefined = !g[1].defined();
    Tensor r = g[0].defined() ? g[0] * 2 : Tensor();
    if (g[1].defined()) r = r.defined() ? r + g[1] * 3 : g[1] * 3;
    return {r};
  }
};

TEST_F(CustomFunction, MaterializeGradsOff) {
  Tensor x = vec({1, 2}).requires_grad_();
  std::vector<Tensor> ys = NoMaterialize::apply(x);
  ys[0].sum().backward();
  EXPECT_TRUE(NoMaterialize::got_undefined);
  expect_near(x.grad(), {2, 2});
}

struct Cube : Function<Cube> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * x * x * 3};
  }
  static tensor_list jvp(AutogradContext* ctx, tensor_list t) {
    Tensor x = ctx->get_saved_variables()[0];
    return {t[0] * x * x * 3};
  }
};

TEST_F(CustomFunction, JvpMatchesFiniteDifferences) {
  auto f = [](const tensor_list& in) { return Cube::apply(in[0]); };
  EXPECT_TRUE(autograd::gradcheck(f, {drandn({5})}, {.check_forward_ad = true}));
  namespace fwAD = autograd::forward_ad;
  fwAD::dual_level level;
  Tensor x = fwAD::make_dual(vec({1, 2}), vec({1, 10}));
  auto [y, dy] = fwAD::unpack_dual(Cube::apply(x));
  expect_near(y, {1, 8});
  expect_near(dy, {3, 120});
}

TEST_F(CustomFunction, MissingJvp) {
  namespace fwAD = autograd::forward_ad;
  fwAD::dual_level level;
  Tensor x = fwAD::make_dual(vec({1, 2}), vec({1, 1}));
  WICK_EXPECT_THROW_MSG(Square::apply(x), RuntimeError, "Square: you must implement the jvp function");
}

TEST_F(CustomFunction, GradcheckReportsMismatches) {
  struct Wrong : Function<Wrong> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 3}; }
  };
  auto f = [](const tensor_list& in) { return Wrong::apply(in[0]); };
  EXPECT_FALSE(autograd::gradcheck(f, {drandn({3})}, {.raise_exception = false}));
  WICK_EXPECT_THROW_MSG(autograd::gradcheck(f, {drandn({3})}), RuntimeError,
                        "Jacobian mismatch (backward mode) for output 0 with respect to input 0, at input element 0 "
                        "and output element 0: numerical 2");
}

}  // namespace
}  // namespace wick::testing
