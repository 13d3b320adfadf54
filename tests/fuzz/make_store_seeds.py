#!/usr/bin/env python3
# tests/fuzz/make_store_seeds.py - writes the seed corpus of store_fuzz (tests/fuzz/corpus/store/).
"""Each seed follows store_fuzz.cpp's decoding, front to back: a mode byte
(0 server, 1 client, 2 rendezvous), then that mode's fields. Keys and 64-bit
fields are usually indices into the fuzzer's tables:
  key byte < 200: ["a", "b", "counter", "wick/store/joined", "", "wick/g1/world_size/0"][b % 6]
  i64 byte < 200: [0, 1, -1, 5, 1000, 2**62, INT64_MAX, INT64_MIN][b % 8]
Run it from anywhere; it rewrites the seeds it owns (seed_*) and keeps the others.
"""
import pathlib
import struct

OUT = pathlib.Path(__file__).resolve().parent / "corpus" / "store"
KEY = {"a": 0, "b": 1, "counter": 2, "joined": 3, "empty": 4, "ws0": 5}
I64 = {0: 0, 1: 1, -1: 2, 5: 3, 1000: 4, 2**62: 5, "max": 6, "min": 7}
SET, GET, ADD, WAIT, CHECK, DELETE, NUM_KEYS, REGISTER, DEAD, BYE = range(1, 11)


def server(conns, steps):
    return bytes([0, conns - 1]) + b"".join(steps)


def req(conn, cmd, *fields):
    # The step byte: bits 0-1 the connection (modulo their number), bits 2-3 the action (2: a request).
    return bytes([8 + conn, cmd]) + bytes(fields)


def raw(conn, data):
    return bytes([4 + conn, len(data)]) + data


def drain(conn):
    return bytes([conn])


SEEDS = {
    "seed_server_every_command": server(2, [
        req(0, SET, KEY["a"], KEY["b"]), req(1, GET, KEY["a"], I64[1000]), req(0, ADD, KEY["counter"], I64[5]),
        req(1, ADD, KEY["counter"], I64[-1]), req(0, WAIT, 2, KEY["a"], KEY["counter"], I64[1000]),
        req(1, CHECK, 1, KEY["b"]), req(0, DELETE, KEY["a"]), req(1, NUM_KEYS), req(0, REGISTER, KEY["b"], I64[1]),
        req(1, DEAD, KEY["b"]), drain(0), drain(1), req(0, BYE)]),
    "seed_server_waits_at_the_edges": server(2, [
        req(0, WAIT, 1, KEY["ws0"], I64["max"]), req(1, GET, KEY["b"], I64["min"]), req(1, SET, KEY["ws0"], KEY["a"]),
        drain(0), drain(1)]),
    "seed_server_counter_overflow": server(1, [
        req(0, ADD, KEY["counter"], I64["max"]), req(0, ADD, KEY["counter"], I64["max"]), req(0, SET, KEY["a"], KEY["b"]),
        req(0, ADD, KEY["a"], I64[1]), drain(0)]),
    "seed_server_garbage": server(3, [
        raw(0, b"\xee\x01\x02"), raw(1, b"\x01\xff\xff\xff\x7fk"), raw(2, b"\x04\xff\xff\xff\xff"), drain(0)]),
}


def client(replies, ops):
    return bytes([1, len(replies) // 4, len(replies) % 4]) + replies + bytes(ops)


def u32(v):
    return struct.pack("<I", v)


def i64(v):
    return struct.pack("<q", v)


# Client ops: byte % 9 -> 0 set, 1 get, 2 add, 3 wait, 4 check, 5 delete, 6 num_keys, 7 dead_ranks, 8 register.
SEEDS["seed_client_every_reply"] = client(
    b"\x00" + b"\x00" + u32(3) + b"abc" + b"\x00" + i64(7) + b"\x00" + b"\x01" + b"\x01" + i64(4) + u32(2) + i64(1) +
    i64(3) + b"\x00",
    [0, KEY["a"], 1, KEY["a"], 2, KEY["counter"], I64[5], 3, KEY["a"], KEY["b"], 10, 4, KEY["a"], 5, KEY["a"], 6,
     7, KEY["b"], 8, KEY["b"], 1])
SEEDS["seed_client_refusals"] = client(
    b"\x01" + b"\x02" + u32(5) + b"nope!" + b"\x01" + b"\x00" + u32(0xffffffff),
    [1, KEY["a"], 2, KEY["a"], I64[1], 3, KEY["a"], KEY["b"], 1, 4, KEY["a"], 7, KEY["a"]])
SEEDS["seed_client_short_reply"] = client(b"\x00" + u32(100) + b"abc", [1, KEY["a"], 1, KEY["a"]])


def rendezvous(values, rank, size):
    out = bytes([2, len(values)])
    for kind, generation, r, value in values:
        # kind: 0 wick/inits/, 1 wick/gG/claimed/, 2 wick/gG/world_size/, 3 wick/progress/
        out += bytes([kind + 4 * (generation - 1), r, len(value)]) + value
    return out + bytes([rank + 1, size + 1])


SEEDS["seed_rendezvous_joins"] = rendezvous([(2, 1, 0, b"2")], 1, 2)
SEEDS["seed_rendezvous_world_size_text"] = rendezvous([(2, 1, 0, b"two")], 1, 2)
SEEDS["seed_rendezvous_other_sizes"] = rendezvous([(2, 1, 0, b"2"), (2, 1, 2, b"3"), (2, 1, 1, b"99999999999")], 1, 3)
SEEDS["seed_rendezvous_counter_text"] = rendezvous([(0, 1, 0, b"x")], 0, 1)
SEEDS["seed_rendezvous_alone"] = rendezvous([], 0, 1)
SEEDS["seed_rendezvous_claimed"] = rendezvous([(1, 1, 0, b"1")], 0, 1)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("seed_*"):
        old.unlink()
    for name, data in SEEDS.items():
        (OUT / name).write_bytes(data)
    print(f"wrote {len(SEEDS)} seeds to {OUT}")


if __name__ == "__main__":
    main()
