// dispatch/ops/definitions.cpp - the torch catalog, registered from the generated definition table.
/// \file
/// dispatch/ops/*.ops define every torch operator once; the build turns them
/// into `torch_catalog()` (sdk/opgen/wick_opgen.py) and the typed API.
#include "dispatch/ops/definitions.h"

#include <map>
#include <string>
#include <string_view>

#include "wick/definitions.h"

namespace wick {

const std::vector<InplaceTwinDecl>& inplace_twins() {
  static const std::vector<InplaceTwinDecl> twins = [] {
    std::vector<InplaceTwinDecl> out;
    for (const CatalogDef& d : torch_catalog().defs) {
      if ((d.flags & CatalogDef::kInplaceTwin) != 0)
        out.push_back({d.schema, (d.flags & CatalogDef::kInplaceView) != 0});
    }
    return out;
  }();
  return twins;
}

const std::vector<std::string>& out_copy_variants() {
  static const std::vector<std::string> variants = [] {
    std::vector<std::string> out;
    for (const CatalogDef& d : torch_catalog().defs) {
      if ((d.flags & CatalogDef::kOutByCopy) != 0) {
        const std::string_view schema(d.schema);
        out.push_back(std::string(d.ns) + "." + std::string(schema.substr(0, schema.find('('))));
      }
    }
    return out;
  }();
  return variants;
}

void register_torch_catalog(std::vector<std::unique_ptr<Library>>& out) {
  std::map<std::string, Library*> blocks;
  define_catalog(torch_catalog(), [&](const std::string& ns) -> Library& {
    Library*& block = blocks[ns];
    if (block == nullptr) {
      out.push_back(std::make_unique<Library>(ns));
      block = out.back().get();
    }
    return *block;
  });
}

}  // namespace wick
