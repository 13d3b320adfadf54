// wick/data.h - data loading in one include: datasets, transforms, the DataLoader, file readers.
/// \file
/// torch.utils.data (libtorch's torch::data) for wick:
///
///   #include <wick/data.h>
///
///   auto ds = wick::data::MNIST(root).map(wick::data::Normalize(0.1307, 0.3081));
///   wick::data::DataLoader loader(ds, {.batch_size = 64, .shuffle = true, .num_workers = 2});
///   for (auto& batch : loader) train_step(batch.data, batch.target);
///
/// wick/data_dataset.h: Example, Dataset, DatasetBase (map), TensorDataset,
/// TransformDataset, Transform, Normalize, Stack. wick/data_loader.h:
/// DataLoader, DataLoaderOptions. wick/data_readers.h: MNIST,
/// read_mnist_images / read_mnist_labels, read_csv.
#pragma once

#include "wick/data_dataset.h"  // IWYU pragma: export
#include "wick/data_loader.h"   // IWYU pragma: export
#include "wick/data_readers.h"  // IWYU pragma: export
