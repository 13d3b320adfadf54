// tools/examples/mlp.cpp - an MLP trained with SGD, line by line as a libtorch program writes one.
/// \file
/// The data are generated: points in [-1.5, 1.5]^2, labelled by whether
/// they fall inside the unit circle. It exits 1 unless the trained net
/// classifies at least 90% of fresh points right.
#include <iostream>

#include <wick/wick.h>

// Define a new Module.
struct Net : wick::nn::Callable<Net> {
  Net() {
    // Construct and register three Linear submodules.
    fc1 = register_module("fc1", wick::nn::Linear(2, 64));
    fc2 = register_module("fc2", wick::nn::Linear(64, 32));
    fc3 = register_module("fc3", wick::nn::Linear(32, 2));
  }

  // Implement the Net's algorithm.
  wick::Tensor forward(wick::Tensor x) {
    x = wick::relu(fc1->forward(x));
    x = wick::nn::functional::dropout(x, /*p=*/0.1, /*training=*/is_training());
    x = wick::relu(fc2->forward(x));
    return wick::log_softmax(fc3->forward(x), /*dim=*/1);
  }

  // Use one of many "standard library" modules.
  wick::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

namespace {

// A batch of points and their labels (1 inside the unit circle).
std::pair<wick::Tensor, wick::Tensor> make_batch(std::int64_t n) {
  const wick::Tensor x = wick::rand({n, 2}) * 3 - 1.5;
  const wick::Tensor y = (x.pow(2).sum(1) < 1).to(wick::kLong);
  return {x, y};
}

}  // namespace

int main() {
  wick::init();
  wick::manual_seed(0);
  // Create a new Net.
  auto net = std::make_shared<Net>();

  // Instantiate an SGD optimization algorithm to update our Net's parameters.
  wick::optim::SGD optimizer(net->parameters(), {.lr = 0.1, .momentum = 0.9});

  for (std::size_t epoch = 1; epoch <= 20; ++epoch) {
    double epoch_loss = 0;
    for (std::size_t batch_index = 0; batch_index < 20; ++batch_index) {
      auto [data, target] = make_batch(64);
      // Reset gradients.
      optimizer.zero_grad();
      // Execute the model on the input data.
      wick::Tensor prediction = (*net)(data);
      // Compute a loss value to judge the prediction of our model.
      wick::Tensor loss = wick::nn::functional::nll_loss(prediction, target);
      // Compute gradients of the loss w.r.t. the parameters of our model.
      loss.backward();
      // Update the parameters based on the calculated gradients.
      optimizer.step();
      epoch_loss += loss.item<double>();
    }
    if (epoch % 5 == 0) std::cout << "Epoch: " << epoch << " | Loss: " << epoch_loss / 20 << "\n";
  }

  net->eval();
  wick::InferenceMode guard;
  auto [data, target] = make_batch(1000);
  const double accuracy = (*net)(data).argmax(1).eq(target).to(wick::kFloat64).mean().item<double>();
  std::cout << "accuracy on 1000 fresh points: " << accuracy << "\n";
  return accuracy >= 0.9 ? 0 : 1;
}
