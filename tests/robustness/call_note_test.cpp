// tests/robustness/call_note_test.cpp - errors from a boxed call name the operator and its arguments.
/// \file
/// Note [Call notes] (dispatch/boxed_call.cpp): a wick::Error raised by a
/// kernel under `wick::call` carries a note with the operator and the
/// arguments as the caller gave them; binding errors and typed calls get none.
#include "tests/robustness/bad_input.h"
#include "wick/nn_functional.h"

namespace wick::testing {
namespace {

class CallNote : public BadInputTest {};

TEST_F(CallNote, KernelErrorNamesOperatorAndArguments) {
  try {
    (void)call("torch.softmax", {Value(ones({2, 3})), Value(5)});
    FAIL() << "no error";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.message(), "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    EXPECT_EQ(std::string(e.what()), std::string(e.message()) +
                                         "\n  in torch.softmax(input=Tensor(shape=[2, 3], dtype=float32), dim=5)");
    EXPECT_EQ(e.notes(), 1);
  }
}

TEST_F(CallNote, KeywordsListsAndLongValuesAreDescribed) {
  try {
    (void)call("torch.cat", {Value(std::vector<Tensor>{ones({2, 3}), ones({2, 4}, ScalarType::kInt64)})},
               {{"dim", Value(0)}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "\n  in torch.cat(tensors=[Tensor(shape=[2, 3], dtype=float32), Tensor(shape=[2, 4], dtype=int64)], dim=0)"),
              std::string::npos)
        << e.what();
  }
  const std::string long_string(100, 'x');
  try {
    (void)call("torch.nn.functional.mse_loss", {Value(ones({2})), Value(ones({2}))}, {{"reduction", Value(long_string)}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reduction='" + std::string(59, 'x') + "...)"), std::string::npos) << e.what();
  }
}

TEST_F(CallNote, BindingErrorsAndTypedCallsHaveNoNote) {
  try {
    (void)call("torch.softmax", {Value(ones({2, 3})), Value("x")});
    FAIL() << "no error";
  } catch (const TypeError& e) {
    EXPECT_EQ(e.notes(), 0);
    EXPECT_STREQ(e.what(), e.message());
  }
  try {
    (void)softmax(ones({2, 3}), 5);
    FAIL() << "no error";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.notes(), 0);
  }
}

TEST_F(CallNote, NotesAccumulateAndKeepTheType) {
  try {
    try {
      throw ValueError("bad");
    } catch (Error& e) {
      e.add_note("first");
      e.add_note("second");
      throw;
    }
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "bad\nfirst\nsecond");
    EXPECT_STREQ(e.message(), "bad");
    EXPECT_EQ(e.notes(), 2);
  }
}

}  // namespace
}  // namespace wick::testing
