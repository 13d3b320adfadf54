// tests/robustness/catalog_arguments_test.cpp - every overload refuses badly bound arguments.
/// \file
/// Walks every schema in the catalog (every overload of every entry,
/// internal `aten` ones included) and calls it through the boxed API with:
/// one positional argument too many, no arguments, a value of a wrong type
/// in each position, an unknown keyword, and a keyword that repeats a
/// positional argument or another keyword. Each must be a TypeError whose
/// message names the operator and, where there is one, the argument.
/// Operators of plugin namespaces loaded by other tests are left out: the
/// walk covers the catalog libwick and the CPU backend define.
#include <algorithm>

#include "tests/robustness/bad_input.h"

namespace wick::testing {
namespace {

class CatalogArguments : public BadInputTest {};

/// Every entry of the built-in catalog (the `torch` and `aten` namespaces).
std::vector<CatalogEntry> builtin_entries() {
  std::vector<CatalogEntry> out;
  for (CatalogEntry& e : catalog_entries())
    if (e.ns.rfind("torch", 0) == 0 || is_internal_namespace(e.ns)) out.push_back(std::move(e));
  return out;
}

/// The name Python uses for an argument (a function's `self` is `input`).
std::string python_name(const CatalogEntry& e, const SchemaArgument& a) {
  return a.name == "self" && e.kind == "function" ? "input" : a.name;
}

/// A value of the right type for `a` (not necessarily one the kernel accepts).
Value type_correct(const SchemaArgument& a) {
  const SchemaType& t = a.type;
  if (t.optional && !t.is_list && t.kind != TypeKind::kTensor) return Value();
  if (t.is_list) {
    const std::size_t n = t.list_size > 0 ? static_cast<std::size_t>(t.list_size) : 1;
    switch (t.kind) {
      case TypeKind::kInt: return Value(std::vector<std::int64_t>(n, 1));
      case TypeKind::kFloat: return Value(std::vector<double>(n, 1.0));
      case TypeKind::kTensor: return Value(std::vector<Tensor>{ones({2, 3})});
      default: return Value();
    }
  }
  switch (t.kind) {
    case TypeKind::kTensor: return Value(ones({2, 3}));
    case TypeKind::kInt: return Value(1);
    case TypeKind::kFloat: return Value(1.0);
    case TypeKind::kBool: return Value(false);
    case TypeKind::kStr: return a.default_value ? *a.default_value : Value("mean");
    case TypeKind::kScalar: return Value(1);
    case TypeKind::kScalarType: return Value(ScalarType::kFloat32);
    case TypeKind::kDevice: return Value(Device::parse("cpu"));
    case TypeKind::kGenerator:
    case TypeKind::kAny: return Value();
  }
  return Value();
}

/// A value no overload can take in a position of type `a` (only `Any`
/// accepts a dict), and one that is wrong for this type but could be right
/// for another (a str for a number, an int for a bool or a str).
std::vector<Value> wrong_values(const SchemaArgument& a, bool named_overload) {
  std::vector<Value> out{Value::dict({{"key", Value(1)}})};
  if (!named_overload) return out;  // a sibling overload may rightly take the second kind
  const SchemaType& t = a.type;
  if (t.is_list) {
    out.emplace_back(t.kind == TypeKind::kTensor ? Value(1) : Value("x"));
    return out;
  }
  switch (t.kind) {
    case TypeKind::kInt: out.emplace_back(1.5); break;
    case TypeKind::kBool:
    case TypeKind::kStr: out.emplace_back(3); break;
    case TypeKind::kDevice: out.emplace_back(2.5); break;
    default: out.emplace_back("x"); break;
  }
  return out;
}

std::size_t positional_count(const FunctionSchema& s) {
  return static_cast<std::size_t>(
      std::count_if(s.arguments.begin(), s.arguments.end(), [](const SchemaArgument& a) { return !a.kwarg_only; }));
}

// A variadic argument (Python's *tensors) is never required: it may be empty.
bool has_required(const FunctionSchema& s) {
  return std::any_of(s.arguments.begin(), s.arguments.end(),
                     [](const SchemaArgument& a) { return !a.default_value.has_value() && !a.variadic; });
}

bool has_variadic(const FunctionSchema& s) {
  return std::any_of(s.arguments.begin(), s.arguments.end(), [](const SchemaArgument& a) { return a.variadic; });
}

/// Checks that `a` failed with a TypeError naming the operator and each of `needles`.
void expect_type_error(Failures& f, const CatalogEntry& e, const std::string& what, const Attempt& a,
                       const std::vector<std::string>& needles) {
  f.check(e, what, a, /*must_fail=*/true);
  if (a.ok || !a.foreign.empty()) return;
  if (a.error_type != "TypeError") f.add(e.qualified_name, what + ": expected a TypeError, got " + a.error_type + ": " + a.error);
  for (const std::string& n : needles)
    if (a.error.find(n) == std::string::npos)
      f.add(e.qualified_name, what + ": the message does not name " + n + ": " + a.error);
}

// Each test below walks all of them; this one only proves the walk is whole.
TEST_F(CatalogArguments, WalkCoversEveryBuiltinSchema) {
  std::size_t schemas = 0;
  for (const CatalogEntry& e : builtin_entries()) {
    ASSERT_FALSE(e.overloads.empty()) << e.qualified_name;
    for (const std::string& full : e.overloads) {
      EXPECT_NO_THROW((void)find_op(full).schema()) << full;
      ++schemas;
    }
  }
  std::printf("%zu schemas in %zu entries\n", schemas, builtin_entries().size());
  EXPECT_GE(schemas, 400u);
}

TEST_F(CatalogArguments, TooManyPositionalArguments) {
  Failures f;
  for (const CatalogEntry& e : builtin_entries()) {
    for (const std::string& full : e.overloads) {
      const FunctionSchema s = find_op(full).schema();
      if (has_variadic(s)) continue;  // *tensors takes any number (WrongTypeInEachPosition gives it a wrong item)
      // Dicts: no overload binds them, so a sibling cannot take the extra one.
      std::vector<Value> args(positional_count(s) + 1, Value::dict({}));
      expect_type_error(f, e, full + " with " + std::to_string(args.size()) + " positional arguments",
                        attempt(full, args, {}), {"positional argument"});
    }
  }
  f.report();
}

TEST_F(CatalogArguments, MissingRequiredArgument) {
  Failures f;
  for (const CatalogEntry& e : builtin_entries()) {
    // A plain name resolves among its overloads: it takes no arguments when one of them does.
    bool some_overload_takes_none = false;
    for (const std::string& full : e.overloads)
      some_overload_takes_none = some_overload_takes_none || !has_required(find_op(full).schema());
    for (const std::string& full : e.overloads) {
      const FunctionSchema s = find_op(full).schema();
      if (!has_required(s) || (full == e.qualified_name && some_overload_takes_none)) continue;
      const auto first = std::find_if(s.arguments.begin(), s.arguments.end(), [](const SchemaArgument& a) {
        return !a.default_value.has_value() && !a.variadic;
      });
      expect_type_error(f, e, full + " with no arguments", attempt(full, {}, {}),
                        {"required positional argument", "\"" + python_name(e, *first) + "\""});
    }
  }
  f.report();
}

TEST_F(CatalogArguments, WrongTypeInEachPosition) {
  Failures f;
  std::size_t calls = 0;
  for (const CatalogEntry& e : builtin_entries()) {
    for (const std::string& full : e.overloads) {
      const FunctionSchema s = find_op(full).schema();
      const bool named = full != e.qualified_name;
      std::vector<Value> prefix;  // type-correct values of the positions before `i`
      Kwargs kwargs;              // for keyword-only arguments
      for (const SchemaArgument& a : s.arguments) {
        // `Any` and `Generator` take every value (a Generator is not modelled yet).
        if (a.type.kind != TypeKind::kAny && a.type.kind != TypeKind::kGenerator) {
          for (const Value& wrong : wrong_values(a, named)) {
            std::vector<Value> args = prefix;
            Kwargs kw = kwargs;
            if (a.kwarg_only) {
              kw.emplace_back(a.name, wrong);
            } else {
              args.push_back(wrong);
            }
            ++calls;
            expect_type_error(f, e, full + " with " + wrong.type_name() + " for '" + a.name + "'",
                              attempt(full, args, kw), {"'" + python_name(e, a) + "'"});
          }
        }
        if (a.kwarg_only) {
          kwargs.emplace_back(a.name, type_correct(a));
        } else {
          prefix.push_back(type_correct(a));
        }
      }
    }
  }
  std::printf("%zu calls with a wrong type\n", calls);
  f.report();
}

TEST_F(CatalogArguments, UnknownAndRepeatedKeywords) {
  Failures f;
  for (const CatalogEntry& e : builtin_entries()) {
    for (const std::string& full : e.overloads) {
      const FunctionSchema s = find_op(full).schema();
      std::vector<Value> args;
      Kwargs kwargs;
      for (const SchemaArgument& a : s.arguments) {
        if (a.kwarg_only) {
          kwargs.emplace_back(a.name, type_correct(a));
        } else {
          args.push_back(type_correct(a));
        }
      }
      Kwargs unknown = kwargs;
      unknown.emplace_back("no_such_argument", Value(1));
      expect_type_error(f, e, full + " with an unknown keyword", attempt(full, args, unknown),
                        {"unexpected keyword argument 'no_such_argument'"});
      if (s.arguments.empty()) continue;
      const SchemaArgument& first = s.arguments.front();
      const std::string name = python_name(e, first);
      Kwargs repeated = kwargs;
      if (first.kwarg_only) {
        repeated.emplace_back(first.name, type_correct(first));  // the same keyword twice
      } else {
        repeated.emplace_back(name, type_correct(first));  // positional and keyword
      }
      expect_type_error(f, e, full + " with '" + name + "' given twice", attempt(full, args, repeated),
                        {"multiple values for argument '" + name + "'"});
    }
  }
  f.report();
}

}  // namespace
}  // namespace wick::testing
