// dispatch/ops/definitions.cpp - the torch catalog, registered from the generated definition table.
/// \file
/// dispatch/ops/*.ops define every torch operator once; the build turns them
/// into `torch_catalog()` (sdk/opgen/wick_opgen.py) and the typed API.
#include "dispatch/ops/definitions.h"

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "wick/definitions.h"

namespace wick {

namespace {

// "exp_(Tensor(a!) self) -> ..." -> "exp_"; "clamp_.Tensor(...)" -> "clamp_.Tensor".
std::string name_of(std::string_view schema) { return std::string(schema.substr(0, schema.find('('))); }

// Whether the definition named `qualified` ("torch.addmm") lists `tag`.
bool has_tag(std::string_view qualified, std::string_view tag) {
  static const std::map<std::string, std::string_view, std::less<>> tags = [] {
    std::map<std::string, std::string_view, std::less<>> out;
    for (const CatalogDef& d : torch_catalog().defs)
      if (d.tags != nullptr) out.emplace(std::string(d.ns) + "." + name_of(d.schema), d.tags);
    return out;
  }();
  const auto it = tags.find(qualified);
  if (it == tags.end()) return false;
  for (std::string_view rest = it->second; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == tag) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}

}  // namespace

const std::vector<InplaceTwinDecl>& inplace_twins() {
  static const std::vector<InplaceTwinDecl> twins = [] {
    std::vector<InplaceTwinDecl> out;
    std::set<std::string> methods;  // the operators defined in torch.Tensor
    for (const CatalogDef& d : torch_catalog().defs)
      if ((d.flags & CatalogDef::kInplaceTwin) == 0 && std::string_view(d.ns) == "torch.Tensor")
        methods.insert(name_of(d.schema));
    for (const CatalogDef& d : torch_catalog().defs) {
      if ((d.flags & CatalogDef::kInplaceTwin) == 0) continue;
      std::string name = name_of(d.schema);
      const std::size_t dot = name.find('.');
      std::string functional =
          dot == std::string::npos ? name.substr(0, name.size() - 1) : name.substr(0, dot - 1) + name.substr(dot);
      // X_ computes torch.X, or torch.Tensor.X where X is defined there (polygamma: its method takes self first).
      const std::string qualified = (methods.count(functional) != 0 ? "torch.Tensor." : "torch.") + functional;
      const bool structured = has_tag(qualified, "inplace_check=structured");
      out.push_back({d.schema, std::move(name), qualified, (d.flags & CatalogDef::kInplaceView) != 0, structured});
    }
    return out;
  }();
  return twins;
}

const std::vector<OutCopyDecl>& out_copy_variants() {
  static const std::vector<OutCopyDecl> variants = [] {
    std::vector<OutCopyDecl> out;
    for (const CatalogDef& d : torch_catalog().defs) {
      if ((d.flags & CatalogDef::kOutByCopy) == 0) continue;
      const std::string name = std::string(d.ns) + "." + name_of(d.schema);  // X.out or X.Y_out
      const std::string functional = name.substr(0, name.size() - 4);
      out.push_back({name, functional, !has_tag(functional, "nondifferentiable")});
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
