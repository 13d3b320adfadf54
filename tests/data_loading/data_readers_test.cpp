// tests/data_loading/data_readers_test.cpp - placeholder.
