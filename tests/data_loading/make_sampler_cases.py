# tests/data_loading/make_sampler_cases.py - PyTorch 1.13's DistributedSampler orders, for distributed_sampler_test.cpp.
# Run with Debian's python3 (PyTorch 1.13); paste the output into the test's kCases.
from torch.utils.data.distributed import DistributedSampler

for n, replicas, shuffle, seed, drop_last, epoch in [
    (10, 3, True, 0, False, 0), (10, 3, True, 0, False, 1), (10, 3, True, 7, True, 2),
    (10, 3, False, 0, False, 0), (10, 3, False, 0, True, 0), (2, 4, True, 0, False, 0), (25, 4, True, 3, False, 5)]:
    for rank in range(replicas):
        s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed, drop_last=drop_last)
        s.set_epoch(epoch)
        order = list(s)
        assert len(order) == len(s)
        print(f"    {{{n}, {replicas}, {rank}, {str(shuffle).lower()}, {seed}, {str(drop_last).lower()}, {epoch}, {{{', '.join(map(str, order))}}}}},")
