// tests/data_loading/data_transforms_test.cpp - placeholder.
