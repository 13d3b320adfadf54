// core/layout.cpp - torch.strided as a boxed value (wick/layout.h).
#include <memory>

#include "wick/layout.h"

namespace wick {

Value strided_layout() {
  static const std::shared_ptr<Object> strided = std::make_shared<LayoutObject>("strided");  // one object, as Python's
  return Value(strided);
}

}  // namespace wick
