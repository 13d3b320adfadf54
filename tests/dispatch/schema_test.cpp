// tests/dispatch/schema_test.cpp - parse_schema, canonical printing, Python signatures.
/// \file
/// Round trips of realistic native-function schemas, field-level checks of
/// what the parser produces, Python-style signatures, and malformed schemas
/// whose error must name the problem and put the caret under it.
#include "wick/schema.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "wick/error.h"
#include "wick/value.h"

namespace wick {
namespace {

// Value has no operator==; compare the kinds a schema default can take.
bool value_equal(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNone: return true;
    case Value::Kind::kBool: return a.to_bool() == b.to_bool();
    case Value::Kind::kInt: return a.to_int() == b.to_int();
    case Value::Kind::kDouble: {
      const double x = a.to_double();
      const double y = b.to_double();
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case Value::Kind::kString: return a.to_string() == b.to_string();
    case Value::Kind::kIntList: return a.to_int_list() == b.to_int_list();
    case Value::Kind::kDoubleList: return a.to_double_list() == b.to_double_list();
    case Value::Kind::kTensorList: return a.to_tensor_list().size() == b.to_tensor_list().size();
    case Value::Kind::kList: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!value_equal(x[i], y[i])) return false;
      }
      return true;
    }
    default: return false;
  }
}

void expect_argument_equal(const SchemaArgument& a, const SchemaArgument& b) {
  SCOPED_TRACE("argument '" + a.name + "'");
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.alias, b.alias);
  EXPECT_EQ(a.default_text, b.default_text);
  EXPECT_EQ(a.kwarg_only, b.kwarg_only);
  ASSERT_EQ(a.default_value.has_value(), b.default_value.has_value());
  if (a.default_value) {
    EXPECT_TRUE(value_equal(*a.default_value, *b.default_value));
  }
}

void expect_schema_equal(const FunctionSchema& a, const FunctionSchema& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.overload, b.overload);
  ASSERT_EQ(a.arguments.size(), b.arguments.size());
  for (std::size_t i = 0; i < a.arguments.size(); ++i) expect_argument_equal(a.arguments[i], b.arguments[i]);
  ASSERT_EQ(a.returns.size(), b.returns.size());
  for (std::size_t i = 0; i < a.returns.size(); ++i) expect_argument_equal(a.returns[i], b.returns[i]);
}

struct RoundTrip {
  const char* input;
  const char* canonical;  // nullptr: same as input
};

// Realistic schemas, most spelled as in PyTorch's native_functions.yaml.
const RoundTrip kRoundTrips[] = {
    {"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", nullptr},
    {"add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", nullptr},
    {"add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", nullptr},
    {"sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", nullptr},
    {"max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", nullptr},
    {"max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> "
     "(Tensor(a!) values, Tensor(b!) indices)",
     nullptr},
    {"conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
     "SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
     "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
     "int[2] dilation=1, int groups=1) -> Tensor"},
    {"where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", nullptr},
    {"cat(Tensor[] tensors, int dim=0) -> Tensor", nullptr},
    {"index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", nullptr},
    {"div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor", nullptr},
    {"dropout(Tensor input, float p=0.5, bool train=True) -> Tensor", nullptr},
    {"full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
     "bool? pin_memory=None) -> Tensor",
     "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
     "bool? pin_memory=None) -> Tensor"},
    {"_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", nullptr},
    {"unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", nullptr},
    {"view(Tensor(a) self, int[] size) -> Tensor(a)", nullptr},
    {"layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
     "float eps=1e-05, bool cudnn_enable=True) -> Tensor",
     nullptr},
    {"mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor", nullptr},
    {"clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", nullptr},
    {"einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", nullptr},
    {"std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
     nullptr},
    {"bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor", nullptr},
    {"pad(Tensor self, int[] pad, str mode=\"constant\", float? value=None) -> Tensor", nullptr},
    {"var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> "
     "(Tensor, Tensor)",
     nullptr},
    {"amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", nullptr},
    {"hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", nullptr},
    {"nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor", nullptr},
    {"clamp_limits(Tensor self, float lo=-inf, float hi=inf, float fill=nan) -> Tensor", nullptr},
    {"permute(Tensor(a) self, int[] dims) -> Tensor(a)", nullptr},
    {"reduce(Tensor self, str reduce='mean', int[] dims=[0, 1], float[] scales=[1, 0.5]) -> Tensor", nullptr},
    {"print(Any value) -> ()", nullptr},
    {"ones_like(Tensor self) -> (Tensor out)", nullptr},
    {"rand(int[] size, *, Generator? generator, ScalarType? dtype=None, Device device) -> Tensor", nullptr},
    {"native_batch_norm_backward(Tensor grad_out, bool[3] output_mask=[True, False, True]) -> "
     "(Tensor, Tensor, Tensor)",
     nullptr},
};

TEST(Schema, RoundTripsRealisticSchemas) {
  for (const RoundTrip& rt : kRoundTrips) {
    SCOPED_TRACE(rt.input);
    const FunctionSchema first = parse_schema(rt.input);
    const std::string printed = first.str();
    EXPECT_EQ(printed, rt.canonical ? rt.canonical : rt.input);
    const FunctionSchema second = parse_schema(printed);
    expect_schema_equal(first, second);
    EXPECT_EQ(second.str(), printed);
  }
}

TEST(Schema, CanonicalSpellingNormalisesWhitespace) {
  const FunctionSchema s =
      parse_schema("  add.out ( Tensor self ,Tensor other,*,Scalar alpha = 1 , Tensor( a ! ) out )->Tensor(a!)  ");
  EXPECT_EQ(s.str(), "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
}

TEST(Schema, AddOutFields) {
  const FunctionSchema s =
      parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(s.name, "add");
  EXPECT_EQ(s.overload, "out");
  EXPECT_EQ(s.full_name(), "add.out");
  ASSERT_EQ(s.arguments.size(), 4U);
  EXPECT_EQ(s.arguments[0].name, "self");
  EXPECT_FALSE(s.arguments[0].kwarg_only);
  EXPECT_FALSE(s.arguments[0].alias.has_value());
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].type.kind, TypeKind::kScalar);
  EXPECT_EQ(s.arguments[2].default_text, "1");
  ASSERT_TRUE(s.arguments[2].default_value.has_value());
  EXPECT_TRUE(s.arguments[2].default_value->is_int());
  EXPECT_EQ(s.arguments[2].default_value->to_int(), 1);
  EXPECT_TRUE(s.arguments[3].kwarg_only);
  ASSERT_TRUE(s.arguments[3].alias.has_value());
  EXPECT_EQ(s.arguments[3].alias->set, "a");
  EXPECT_TRUE(s.arguments[3].alias->is_write);
  EXPECT_FALSE(s.arguments[3].alias->to_wildcard);
  ASSERT_EQ(s.returns.size(), 1U);
  EXPECT_EQ(s.returns[0].name, "");
  EXPECT_EQ(s.returns[0].type.kind, TypeKind::kTensor);
  EXPECT_EQ(s.returns[0].alias, (AliasInfo{"a", true, false}));
}

TEST(Schema, FullNameWithoutOverload) {
  const FunctionSchema s = parse_schema("relu(Tensor self) -> Tensor");
  EXPECT_EQ(s.full_name(), "relu");
  EXPECT_EQ(s.overload, "");
}

TEST(Schema, OptionalFixedSizeIntList) {
  const FunctionSchema s = parse_schema(
      "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  const SchemaType& dim = s.arguments[1].type;
  EXPECT_EQ(dim.kind, TypeKind::kInt);
  EXPECT_TRUE(dim.is_list);
  EXPECT_EQ(dim.list_size, 1);
  EXPECT_TRUE(dim.optional);
  EXPECT_FALSE(dim.element_optional);
  EXPECT_EQ(dim.str(), "int[1]?");
  EXPECT_FALSE(s.arguments[1].default_text.has_value());
  EXPECT_FALSE(s.arguments[1].default_value.has_value());
  ASSERT_TRUE(s.arguments[2].default_value.has_value());
  EXPECT_TRUE(s.arguments[2].default_value->is_bool());
  EXPECT_FALSE(s.arguments[2].default_value->to_bool());
  EXPECT_EQ(s.arguments[3].type.kind, TypeKind::kScalarType);
  EXPECT_TRUE(s.arguments[3].type.optional);
  ASSERT_TRUE(s.arguments[3].default_value.has_value());
  EXPECT_TRUE(s.arguments[3].default_value->is_none());
  EXPECT_EQ(s.arguments[3].default_text, "None");
}

TEST(Schema, FixedSizeListDefaultIsExpanded) {
  const FunctionSchema s = parse_schema(
      "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
      "int[3] dilation=[1, 2, 3], int groups=1) -> Tensor");
  const SchemaArgument& stride = s.arguments[3];
  EXPECT_EQ(stride.type.list_size, 2);
  EXPECT_EQ(stride.default_text, "1");  // as written
  ASSERT_TRUE(stride.default_value.has_value());
  ASSERT_TRUE(stride.default_value->is_int_list());
  EXPECT_EQ(stride.default_value->to_int_list(), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(s.arguments[4].default_value->to_int_list(), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(s.arguments[5].default_text, "[1, 2, 3]");
  EXPECT_EQ(s.arguments[5].default_value->to_int_list(), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_TRUE(s.arguments[2].type.optional);
  EXPECT_FALSE(s.arguments[2].type.is_list);
}

TEST(Schema, NamedMultipleReturns) {
  const FunctionSchema s =
      parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_EQ(s.returns.size(), 2U);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  EXPECT_EQ(s.returns[1].type.kind, TypeKind::kTensor);
  EXPECT_FALSE(s.returns[0].kwarg_only);
}

TEST(Schema, UnnamedTupleAndEmptyReturns) {
  const FunctionSchema tuple = parse_schema("f(Tensor x) -> (Tensor, int)");
  ASSERT_EQ(tuple.returns.size(), 2U);
  EXPECT_EQ(tuple.returns[1].type.kind, TypeKind::kInt);
  EXPECT_EQ(tuple.returns[1].name, "");
  const FunctionSchema none = parse_schema("_foreach_zero_(Tensor(a!)[] self) -> ()");
  EXPECT_TRUE(none.returns.empty());
  EXPECT_EQ(none.arguments[0].alias, (AliasInfo{"a", true, false}));
  EXPECT_TRUE(none.arguments[0].type.is_list);
  // A single unnamed return in parentheses prints without them.
  EXPECT_EQ(parse_schema("f(Tensor x) -> (Tensor)").str(), "f(Tensor x) -> Tensor");
}

TEST(Schema, EmptyArgumentList) {
  const FunctionSchema s = parse_schema("_get_seed() -> int");
  EXPECT_TRUE(s.arguments.empty());
  EXPECT_EQ(s.returns[0].type.kind, TypeKind::kInt);
  EXPECT_EQ(s.python_signature(), "()");
  EXPECT_EQ(s.str(), "_get_seed() -> int");
}

TEST(Schema, ListOfOptionalTensors) {
  const FunctionSchema s = parse_schema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  const SchemaType& t = s.arguments[1].type;
  EXPECT_TRUE(t.is_list);
  EXPECT_TRUE(t.element_optional);
  EXPECT_FALSE(t.optional);
  EXPECT_EQ(t.list_size, -1);
  EXPECT_EQ(t.str(), "Tensor?[]");
}

TEST(Schema, WildcardAlias) {
  const FunctionSchema s = parse_schema("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]");
  EXPECT_EQ(s.arguments[0].alias, (AliasInfo{"a", false, true}));
  EXPECT_EQ(s.returns[0].alias, (AliasInfo{"a", false, false}));
  EXPECT_TRUE(s.returns[0].type.is_list);
  const FunctionSchema w = parse_schema("f(Tensor(b! -> *) x) -> Tensor");
  EXPECT_EQ(w.arguments[0].alias, (AliasInfo{"b", true, true}));
  EXPECT_EQ(w.str(), "f(Tensor(b! -> *) x) -> Tensor");
}

TEST(Schema, SymIntIsInt) {
  const FunctionSchema s = parse_schema("view(Tensor(a) self, SymInt[] size, SymInt? n=None) -> Tensor(a)");
  EXPECT_EQ(s.arguments[1].type, (SchemaType{TypeKind::kInt, true, -1, false, false}));
  EXPECT_EQ(s.arguments[2].type, (SchemaType{TypeKind::kInt, false, -1, true, false}));
}

TEST(Schema, DefaultValueKinds) {
  const FunctionSchema s = parse_schema(
      "f(float a=0.5, float b=1, float c=1e-5, float d=-inf, float e=nan, int g=-3, str h='mean', "
      "str i=\"it's\", float[] j=[1, 2.5], int[] k=[], Scalar l=2.5, int m=Mean, Tensor[] n=[], "
      "bool[2] o=[True, False], Any p=None) -> ()");
  auto dv = [&](const char* name) -> const Value& {
    const int i = s.find_argument(name);
    EXPECT_GE(i, 0) << name;
    return *s.arguments[static_cast<std::size_t>(i)].default_value;
  };
  EXPECT_TRUE(dv("a").is_double());
  EXPECT_DOUBLE_EQ(dv("a").to_double(), 0.5);
  EXPECT_TRUE(dv("b").is_int());  // int-looking default on a float stays an int
  EXPECT_EQ(dv("b").to_int(), 1);
  EXPECT_DOUBLE_EQ(dv("c").to_double(), 1e-5);
  EXPECT_TRUE(std::isinf(dv("d").to_double()));
  EXPECT_LT(dv("d").to_double(), 0);
  EXPECT_TRUE(std::isnan(dv("e").to_double()));
  EXPECT_EQ(dv("g").to_int(), -3);
  EXPECT_EQ(dv("h").to_string(), "mean");
  EXPECT_EQ(dv("i").to_string(), "it's");
  EXPECT_EQ(dv("j").to_double_list(), (std::vector<double>{1.0, 2.5}));
  EXPECT_TRUE(dv("k").is_int_list());
  EXPECT_TRUE(dv("k").to_int_list().empty());
  EXPECT_TRUE(dv("l").is_double());
  EXPECT_EQ(dv("m").to_int(), 1);
  EXPECT_TRUE(dv("n").is_tensor_list());
  ASSERT_TRUE(dv("o").is_list());
  ASSERT_EQ(dv("o").items().size(), 2U);
  EXPECT_TRUE(dv("o").items()[0].to_bool());
  EXPECT_TRUE(dv("p").is_none());
  EXPECT_EQ(s.arguments[2].default_text, "1e-5");  // as written
  EXPECT_EQ(s.arguments[7].default_text, "\"it's\"");
}

TEST(Schema, KeywordOnlyArgumentsMayFollowDefaults) {
  const FunctionSchema s = parse_schema("f(Tensor x, int y=1, *, int z, int w=2) -> Tensor");
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_FALSE(s.arguments[2].default_text.has_value());
  EXPECT_TRUE(s.arguments[3].kwarg_only);
}

TEST(Schema, FindArgument) {
  const FunctionSchema s =
      parse_schema("full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor");
  EXPECT_EQ(s.find_argument("size"), 0);
  EXPECT_EQ(s.find_argument("fill_value"), 1);
  EXPECT_EQ(s.find_argument("device"), 3);
  EXPECT_EQ(s.find_argument("out"), -1);
  EXPECT_EQ(s.find_argument(""), -1);
  EXPECT_EQ(s.arguments[3].type.kind, TypeKind::kDevice);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_TRUE(s.arguments[3].kwarg_only);
}

TEST(Schema, SchemaTypeStr) {
  EXPECT_EQ((SchemaType{TypeKind::kTensor, false, -1, true, false}).str(), "Tensor?");
  EXPECT_EQ((SchemaType{TypeKind::kInt, true, 2, false, false}).str(), "int[2]");
  EXPECT_EQ((SchemaType{TypeKind::kInt, true, -1, true, false}).str(), "int[]?");
  EXPECT_EQ((SchemaType{TypeKind::kScalarType, false, -1, true, false}).str(), "ScalarType?");
  EXPECT_EQ((SchemaType{TypeKind::kGenerator, false, -1, true, false}).str(), "Generator?");
  EXPECT_EQ((SchemaType{TypeKind::kFloat, true, -1, false, false}).str(), "float[]");
  EXPECT_EQ((SchemaType{TypeKind::kAny, false, -1, false, false}).str(), "Any");
  EXPECT_EQ((SchemaType{TypeKind::kTensor, true, -1, false, true}).str(), "Tensor?[]");
}

TEST(Schema, HandBuiltSchemaPrints) {
  FunctionSchema s;
  s.name = "mul";
  s.overload = "Scalar";
  SchemaArgument self;
  self.name = "self";
  SchemaArgument other;
  other.name = "other";
  other.type.kind = TypeKind::kScalar;
  other.default_text = "2";
  other.default_value = Value(2);
  s.arguments = {self, other};
  SchemaArgument ret;
  s.returns = {ret};
  EXPECT_EQ(s.str(), "mul.Scalar(Tensor self, Scalar other=2) -> Tensor");
  EXPECT_EQ(s.python_signature(), "(input, other=2)");
  expect_schema_equal(parse_schema(s.str()), s);
}

TEST(Schema, PythonSignature) {
  const FunctionSchema add = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(add.python_signature(), "(input, other, *, alpha=1)");
  EXPECT_EQ(add.python_signature(/*rename_self=*/false), "(self, other, *, alpha=1)");

  struct Case {
    const char* schema;
    const char* signature;
  };
  const Case cases[] = {
      {"sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
       "(input, dim, keepdim=False, *, dtype=None)"},
      {"conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
       "int[2] dilation=1, int groups=1) -> Tensor",
       "(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)"},
      {"layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
       "float eps=1e-5, bool cudnn_enable=True) -> Tensor",
       "(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True)"},
      {"div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
       "(input, other, *, rounding_mode=None)"},
      {"dropout(Tensor input, float p=0.5, bool train=True) -> Tensor", "(input, p=0.5, train=True)"},
      {"full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       "(size, fill_value, *, dtype=None, device=None)"},
      {"pad(Tensor self, int[] pad, str mode=\"constant\", float? value=None) -> Tensor",
       "(input, pad, mode='constant', value=None)"},
      {"f(str s=\"it's\", str t='a\\\\b') -> ()", "(s=\"it's\", t='a\\\\b')"},
      {"mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor", "(input, target, reduction=1)"},
      {"amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", "(input, dim=[], keepdim=False)"},
      {"f(int[] dims=[0,1], float[] s=[1.5, 2.0]) -> ()", "(dims=[0, 1], s=[1.5, 2.0])"},
      {"f(float a=1, float b=2.50, float c=-inf, float d=inf, float e=nan, int g=-0) -> ()",
       "(a=1, b=2.5, c=-inf, d=inf, e=nan, g=0)"},
      {"hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", "(input, min_val=-1, max_val=1)"},
      {"randn(int[] size, *, Generator? generator) -> Tensor", "(size, *, generator)"},
      {"f(*, Tensor self, int x=2) -> ()", "(*, input, x=2)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema);
    EXPECT_EQ(parse_schema(c.schema).python_signature(), c.signature);
  }
}

// ---- malformed schemas -------------------------------------------------------

struct ParseError {
  std::string first_line;
  std::string schema_line;
  std::string caret_line;
  std::size_t caret_column = std::string::npos;  // index into the schema string
};

ParseError parse_error(std::string_view text) {
  ParseError out;
  try {
    (void)parse_schema(text);
    ADD_FAILURE() << "no SchemaError for: " << text;
  } catch (const SchemaError& e) {
    const std::string msg = e.what();
    const std::size_t nl1 = msg.find('\n');
    const std::size_t nl2 = nl1 == std::string::npos ? std::string::npos : msg.find('\n', nl1 + 1);
    if (nl2 == std::string::npos || msg.find('\n', nl2 + 1) != std::string::npos) {
      ADD_FAILURE() << "message is not three lines: " << msg;
      return out;
    }
    out.first_line = msg.substr(0, nl1);
    out.schema_line = msg.substr(nl1 + 1, nl2 - nl1 - 1);
    out.caret_line = msg.substr(nl2 + 1);
    const std::size_t caret = out.caret_line.find('^');
    if (caret != std::string::npos && caret >= 2) out.caret_column = caret - 2;
  }
  return out;
}

TEST(Schema, ErrorMessageLayout) {
  const std::string text = "add(Tensor self Tensor other) -> Tensor";
  const ParseError e = parse_error(text);
  EXPECT_EQ(e.first_line, "invalid schema: expected ')' but found 'Tensor'");
  EXPECT_EQ(e.schema_line, "  " + text);
  EXPECT_EQ(e.caret_line, std::string(18, ' ') + "^");
  EXPECT_EQ(e.caret_column, 16U);
}

TEST(Schema, ErrorIsAValueError) {
  EXPECT_THROW((void)parse_schema("add(Tensor self"), SchemaError);
  EXPECT_THROW((void)parse_schema("add(Tensor self"), ValueError);
  EXPECT_THROW((void)parse_schema("add(Tensor self"), Error);
}

TEST(Schema, MalformedSchemas) {
  struct Case {
    const char* schema;
    const char* fragment;
    std::size_t column;
  };
  const Case cases[] = {
      {"add(Tensr self) -> Tensor", "unknown type 'Tensr'", 4},
      {"pad(Tensor self, str mode='constant) -> Tensor", "unterminated string", 26},
      {"f(Tensor x, Tensor x) -> Tensor", "duplicate argument name 'x'", 19},
      {"f(Tensor x, int y=1.5) -> Tensor", "default value '1.5' does not match type 'int'", 18},
      {"f(Tensor x=None) -> Tensor", "does not match type 'Tensor'", 11},
      {"f(int[] x=1) -> Tensor", "does not match type 'int[]'", 10},
      {"f(bool x='yes') -> Tensor", "does not match type 'bool'", 9},
      {"f(Tensor x, int y=1, int z) -> Tensor", "non-default argument 'z' follows default argument", 21},
      {"f(Tensor x)", "missing '->'", 11},
      {"f(Tensor x) Tensor", "expected '->' but found 'Tensor'", 12},
      {"f(Tensor x) -> Tensor foo", "trailing characters 'foo'", 22},
      {"(Tensor x) -> Tensor", "empty operator name", 0},
      {"", "empty operator name", 0},
      {"add.(Tensor x) -> Tensor", "empty overload name", 4},
      {"f(Tensor x, *, *, int y) -> Tensor", "duplicate '*'", 15},
      {"f(Tensor x, *) -> Tensor", "expected ',' after '*' but found ')'", 13},
      {"f(int(a) x) -> Tensor", "alias annotation on non-Tensor type 'int'", 5},
      {"f(Tensor(a x) -> Tensor", "expected ')' to close the alias annotation but found 'x'", 11},
      {"f(Tensor(a -> b) x) -> Tensor", "expected '*' after '->'", 14},
      {"f(int[2 x) -> Tensor", "expected ']' but found ' '", 7},
      {"f(Tensor) -> Tensor", "expected argument name but found ')'", 8},
      {"f(Tensor x,) -> Tensor", "expected argument type but found ')'", 11},
      {"f(int x=abc) -> Tensor", "invalid default value 'abc'", 8},
      {"f(int x=99999999999999999999) -> Tensor", "out of range", 8},
      {"f(float x=1.5.2) -> Tensor", "invalid number '1.5.2'", 10},
      {"f(int x=) -> Tensor", "expected a default value but found ')'", 8},
      {"f(int[] x=[1, 2) -> Tensor", "expected ']' but found ')'", 15},
      {"f(Tensor x) -> (Tensor a, Tensor a)", "duplicate return name 'a'", 33},
      {"f(Tensor x) -> (Tensor", "expected ')' but found end of schema", 22},
      {"f(Tensor x) -> Tensr", "unknown type 'Tensr'", 15},
      {"f(Tensor?? x) -> Tensor", "unexpected '?' in type", 9},
      {"f(Tensor x -> Tensor", "expected ')' but found '->'", 11},
      {"aten::add(Tensor x) -> Tensor", "expected '(' but found ':'", 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema);
    const ParseError e = parse_error(c.schema);
    EXPECT_EQ(e.first_line.rfind("invalid schema: ", 0), 0U) << e.first_line;
    EXPECT_NE(e.first_line.find(c.fragment), std::string::npos) << e.first_line;
    EXPECT_EQ(e.schema_line, std::string("  ") + c.schema);
    EXPECT_EQ(e.caret_column, c.column) << e.caret_line;
  }
}

}  // namespace
}  // namespace wick
