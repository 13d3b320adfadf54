// tests/data_loading/data_loader_test.cpp - placeholder.
