// tools/examples/mnist.cpp - the MNIST classifier of libtorch's examples, in wick: train, save, reload, resume.
/// \file
/// The data are generated IDX files in MNIST's layout (real MNIST reads the
/// same way: point `--data` at its four files): each digit class is a
/// bright bar at its own height, with noise. Usage:
///   wick_example_mnist [--data DIR] [--epochs N]
/// It trains, saves the model and the optimizer, reloads both into fresh
/// objects, resumes training, and exits 1 unless the test accuracy is at
/// least 90%.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <wick/data.h>
#include <wick/wick.h>

namespace F = wick::nn::functional;

struct NetImpl : wick::nn::Callable<NetImpl> {
  NetImpl()
      : conv1(wick::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(wick::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  wick::Tensor forward(wick::Tensor x) {
    x = wick::relu(F::max_pool2d(conv1->forward(x), 2));
    x = wick::relu(F::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = wick::relu(fc1->forward(x));
    x = F::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return wick::log_softmax(x, /*dim=*/1);
  }

  wick::nn::Conv2d conv1;
  wick::nn::Conv2d conv2;
  wick::nn::Dropout2d conv2_drop;
  wick::nn::Linear fc1;
  wick::nn::Linear fc2;
};
WICK_MODULE(Net);

namespace {

// --- generated MNIST-format data ----------------------------------------------------------------

void put_be32(std::ofstream& f, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  f.write(b, 4);
}

// Writes `n` 28x28 images and labels as MNIST's IDX files `prefix`-images-idx3-ubyte / -labels-idx1-ubyte.
void write_idx(const std::string& dir, const std::string& prefix, std::int64_t n) {
  const wick::Tensor labels = wick::randint(0, 10, {n});
  wick::Tensor images = wick::rand({n, 28, 28}) * 60;  // background noise
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t row = 3 + 2 * labels[i].item<std::int64_t>();
    images[i].index_put_({wick::indexing::Slice(row, row + 2), wick::indexing::Slice(4, 24)}, 255);
  }
  const wick::Tensor pixels = images.clamp(0, 255).to(wick::kUInt8).contiguous();
  const wick::Tensor bytes = labels.to(wick::kUInt8).contiguous();
  std::ofstream fi(dir + "/" + prefix + "-images-idx3-ubyte", std::ios::binary);
  put_be32(fi, 0x803);
  put_be32(fi, static_cast<std::uint32_t>(n));
  put_be32(fi, 28);
  put_be32(fi, 28);
  fi.write(static_cast<const char*>(pixels.data_ptr()), n * 28 * 28);
  std::ofstream fl(dir + "/" + prefix + "-labels-idx1-ubyte", std::ios::binary);
  put_be32(fl, 0x801);
  put_be32(fl, static_cast<std::uint32_t>(n));
  fl.write(static_cast<const char*>(bytes.data_ptr()), n);
}

// --- training and testing, as the libtorch example's ---------------------------------------------

void train(std::size_t epoch, Net& model, wick::data::DataLoader& loader, std::int64_t dataset_size,
           wick::optim::Optimizer& optimizer) {
  model->train();
  std::size_t batch_idx = 0;
  for (auto& batch : loader) {
    optimizer.zero_grad();
    wick::Tensor output = model(batch.data);
    wick::Tensor loss = F::nll_loss(output, batch.target);
    loss.backward();
    optimizer.step();
    if (batch_idx++ % 10 == 0) {
      std::printf("\rTrain Epoch: %zu [%5zu/%5lld] Loss: %.4f", epoch, batch_idx * batch.data.size(0),
                  static_cast<long long>(dataset_size), loss.item<double>());
    }
  }
  std::printf("\n");
}

double test(Net& model, wick::data::DataLoader& loader, std::int64_t dataset_size) {
  wick::NoGradGuard no_grad;
  model->eval();
  double test_loss = 0;
  std::int64_t correct = 0;
  for (const auto& batch : loader) {
    wick::Tensor output = model(batch.data);
    test_loss += F::nll_loss(output, batch.target, {}, -100, "sum").item<double>();
    correct += output.argmax(1).eq(batch.target).sum().item<std::int64_t>();
  }
  const auto n = static_cast<double>(dataset_size);
  std::printf("Test set: Average loss: %.4f | Accuracy: %.3f\n", test_loss / n, correct / n);
  return correct / n;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir;
  std::size_t epochs = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--data") data_dir = argv[i + 1];
    else if (flag == "--epochs") epochs = static_cast<std::size_t>(std::stoul(argv[i + 1]));
  }
  wick::init();
  wick::manual_seed(1);
  const std::filesystem::path work = std::filesystem::temp_directory_path() / "wick_example_mnist";
  std::filesystem::create_directories(work);
  if (data_dir.empty()) {
    data_dir = work.string();
    write_idx(data_dir, "train", 2000);
    write_idx(data_dir, "t10k", 500);
  }

  auto train_set = wick::data::MNIST(data_dir, /*train=*/true).map(wick::data::Normalize(0.1307, 0.3081));
  auto test_set = wick::data::MNIST(data_dir, /*train=*/false).map(wick::data::Normalize(0.1307, 0.3081));
  wick::data::DataLoader train_loader(train_set, {.batch_size = 64, .shuffle = true, .num_workers = 2});
  wick::data::DataLoader test_loader(test_set, {.batch_size = 1000});

  Net model;
  wick::optim::SGD optimizer(model->parameters(), {.lr = 0.01, .momentum = 0.5});
  for (std::size_t epoch = 1; epoch <= epochs; ++epoch) train(epoch, model, train_loader, train_set.size(), optimizer);
  test(model, test_loader, test_set.size());

  // Save, then resume from the files in fresh objects, as a restarted program would.
  const std::string model_path = (work / "model.pt").string();
  const std::string optimizer_path = (work / "optimizer.pt").string();
  wick::save(model, model_path);
  wick::save(optimizer, optimizer_path);

  Net resumed;
  wick::optim::SGD resumed_optimizer(resumed->parameters(), {.lr = 0.01, .momentum = 0.5});
  wick::load(resumed, model_path);
  wick::load(resumed_optimizer, optimizer_path);
  for (std::size_t epoch = epochs + 1; epoch <= epochs + 1; ++epoch) train(epoch, resumed, train_loader, train_set.size(), resumed_optimizer);
  const double accuracy = test(resumed, test_loader, test_set.size());
  return accuracy >= 0.9 ? 0 : 1;
}
