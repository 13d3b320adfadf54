// core/dtype.cpp - dtype names and the promotion table.
/// \file
#include "wick/dtype.h"

#include <array>
#include <string>

#include "wick/error.h"

namespace wick {

namespace {

struct DtypeNames {
  const char* name;   // torch.<name>
  const char* title;  // kernel messages
};
constexpr std::array<DtypeNames, kNumScalarTypes> kNames = {{
    {"bool", "Bool"},
    {"int32", "Int"},
    {"int64", "Long"},
    {"float32", "Float"},
    {"float64", "Double"},
    {"float16", "Half"},
    {"bfloat16", "BFloat16"},
    {"uint8", "Byte"},
    {"int8", "Char"},
    {"int16", "Short"},
    {"complex64", "ComplexFloat"},
    {"complex128", "ComplexDouble"},
}};

struct DtypeAlias {
  std::string_view name;
  ScalarType type;
};
constexpr DtypeAlias kAliases[] = {
    {"float32", ScalarType::kFloat32},     {"float", ScalarType::kFloat32},     {"float64", ScalarType::kFloat64},
    {"double", ScalarType::kFloat64},      {"float16", ScalarType::kFloat16},   {"half", ScalarType::kFloat16},
    {"bfloat16", ScalarType::kBFloat16},   {"int64", ScalarType::kInt64},       {"long", ScalarType::kInt64},
    {"int32", ScalarType::kInt32},         {"int", ScalarType::kInt32},         {"int16", ScalarType::kInt16},
    {"short", ScalarType::kInt16},         {"int8", ScalarType::kInt8},         {"uint8", ScalarType::kUInt8},
    {"bool", ScalarType::kBool},           {"complex64", ScalarType::kComplex64}, {"cfloat", ScalarType::kComplex64},
    {"complex128", ScalarType::kComplex128}, {"cdouble", ScalarType::kComplex128},
};

// Note [Promotion table]
// PyTorch 1.13's torch.promote_types for every pair, row and column in
// ScalarType order (b1 i4 i8 f4 f8 f2 bf u1 i1 i2 c8 c16). It is not a
// chain: uint8 with int8 is int16, float16 with bfloat16 is float32, and a
// complex dtype with float64 is complex128. tests/core/dtype_test.cpp
// checks it against the table PyTorch prints (tests/data/reference).
constexpr ScalarType b1 = ScalarType::kBool, i4 = ScalarType::kInt32, i8 = ScalarType::kInt64,
                     f4 = ScalarType::kFloat32, f8 = ScalarType::kFloat64, f2 = ScalarType::kFloat16,
                     bf = ScalarType::kBFloat16, u1 = ScalarType::kUInt8, c1 = ScalarType::kInt8,
                     i2 = ScalarType::kInt16, c8 = ScalarType::kComplex64, cd = ScalarType::kComplex128;
constexpr ScalarType kPromote[kNumScalarTypes][kNumScalarTypes] = {
    /* b1 */ {b1, i4, i8, f4, f8, f2, bf, u1, c1, i2, c8, cd},
    /* i4 */ {i4, i4, i8, f4, f8, f2, bf, i4, i4, i4, c8, cd},
    /* i8 */ {i8, i8, i8, f4, f8, f2, bf, i8, i8, i8, c8, cd},
    /* f4 */ {f4, f4, f4, f4, f8, f4, f4, f4, f4, f4, c8, cd},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, cd, cd},
    /* f2 */ {f2, f2, f2, f4, f8, f2, f4, f2, f2, f2, c8, cd},
    /* bf */ {bf, bf, bf, f4, f8, f4, bf, bf, bf, bf, c8, cd},
    /* u1 */ {u1, i4, i8, f4, f8, f2, bf, u1, i2, i2, c8, cd},
    /* c1 */ {c1, i4, i8, f4, f8, f2, bf, i2, c1, i2, c8, cd},
    /* i2 */ {i2, i4, i8, f4, f8, f2, bf, i2, i2, i2, c8, cd},
    /* c8 */ {c8, c8, c8, c8, cd, c8, c8, c8, c8, c8, c8, cd},
    /* cd */ {cd, cd, cd, cd, cd, cd, cd, cd, cd, cd, cd, cd},
};

bool known(ScalarType t) noexcept { return itemsize(t) != 0; }

}  // namespace

std::string_view dtype_name(ScalarType t) noexcept {
  return known(t) ? kNames[static_cast<std::size_t>(t)].name : "undefined";
}

const char* type_title(ScalarType t) noexcept {
  return known(t) ? kNames[static_cast<std::size_t>(t)].title : "Undefined";
}

ScalarType parse_dtype(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const DtypeAlias& a : kAliases)
    if (a.name == name) return a.type;
  throw TypeError(detail::str_cat("unknown dtype 'torch.", name,
                                  "' (wick supports bool, uint8, int8, int16, int32, int64, float16, bfloat16, "
                                  "float32, float64, complex64, complex128)"));
}

ScalarType promote_types(ScalarType a, ScalarType b) noexcept {
  if (!known(a) || !known(b)) return ScalarType::kUndefined;
  return kPromote[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
}

void throw_not_implemented_for(const char* kernel, ScalarType t) {
  throw RuntimeError(detail::str_cat("\"", kernel, "\" not implemented for '", type_title(t), "'"));
}

}  // namespace wick
