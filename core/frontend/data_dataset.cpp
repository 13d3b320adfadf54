// core/frontend/data_dataset.cpp - TensorDataset, TransformDataset, Stack collation and Normalize.
/// \file
#include "wick/data_dataset.h"

#include <cstddef>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "wick/dtype.h"
#include "wick/error.h"
#include "wick/ops.h"

namespace wick::data {

TransformDataset::TransformDataset(std::shared_ptr<const Dataset> dataset, Transform transform)
    : dataset_(std::move(dataset)), transform_(std::move(transform)) {
  WICK_CHECK(dataset_ != nullptr, RuntimeError, "TransformDataset: the dataset is null");
}

Example TransformDataset::get(std::int64_t index) const { return transform_(dataset_->get(index)); }

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  WICK_CHECK(data_.defined(), ValueError, "TensorDataset: the data tensor is undefined");
  size_ = data_.size(0);
  WICK_CHECK(!target_.defined() || target_.size(0) == size_, ValueError, "Size mismatch between tensors");
}

Example TensorDataset::get(std::int64_t index) const {
  return {data_[index], target_.defined() ? target_[index] : Tensor()};
}

Example Stack::operator()(std::vector<Example> examples) const {
  WICK_CHECK(!examples.empty(), ValueError, "Stack: no examples to collate");
  const bool with_target = examples.front().target.defined();
  std::vector<Tensor> data;
  std::vector<Tensor> targets;
  data.reserve(examples.size());
  if (with_target) targets.reserve(examples.size());
  for (std::size_t i = 0; i < examples.size(); ++i) {
    Example& e = examples[i];
    WICK_CHECK(e.target.defined() == with_target, ValueError, "Stack: example ", i,
               e.target.defined() ? " has a target but example 0 has none" : " has no target but example 0 has one");
    data.push_back(std::move(e.data));
    if (with_target) targets.push_back(std::move(e.target));
  }
  return {stack(data), with_target ? stack(targets) : Tensor()};
}

namespace {

// Python's repr of a torch.Size: "torch.Size([3, 4])".
std::string size_repr(IntArrayRef sizes) {
  std::ostringstream os;
  os << "torch.Size([";
  for (std::size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "])";
  return os.str();
}

// `values` as a [n, 1, 1] tensor of `dtype`, so that it broadcasts over
// [..., C, H, W] channel by channel.
Tensor channel_tensor(const std::vector<double>& values, ScalarType dtype) {
  const auto n = static_cast<std::int64_t>(values.size());
  Tensor t = empty({n, 1, 1}, ScalarType::kFloat64);
  double* p = t.data_ptr<double>();
  for (std::size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t.to(dtype);
}

}  // namespace

Normalize::Normalize(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {
  WICK_CHECK(!mean_.empty(), ValueError, "Normalize: mean and std must not be empty");
  WICK_CHECK(mean_.size() == std_.size(), ValueError, "Normalize: got ", mean_.size(), " means but ", std_.size(),
             " standard deviations");
}

Tensor Normalize::operator()(const Tensor& image) const {
  WICK_CHECK(is_floating(image.dtype()), TypeError, "Input tensor should be a float tensor. Got torch.",
             dtype_name(image.dtype()), ".");
  WICK_CHECK(image.dim() >= 3, ValueError,
             "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = ",
             size_repr(image.sizes()));
  const Tensor mean = channel_tensor(mean_, image.dtype()).to(image.device());
  const Tensor std = channel_tensor(std_, image.dtype()).to(image.device());
  WICK_CHECK(!std.eq(0).any().item<bool>(), ValueError, "std evaluated to zero after conversion to torch.",
             dtype_name(image.dtype()), ", leading to division by zero.");
  return image.sub(mean).div(std);
}

Example Normalize::operator()(Example example) const {
  example.data = (*this)(example.data);
  return example;
}

}  // namespace wick::data
