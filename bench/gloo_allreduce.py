"""PyTorch's gloo all-reduce, measured as ./collectives measures ours (chapter 8): the same
sizes (-b -e -f), iterations (-n) and warm-up (-w), float32 sums in place on N CPU processes
(--n_gpus), every element checked against the sum computed exactly, the median of the timed
iterations; one row per size in nccl-tests' format, which ./allreduce_bench reads.
Usage: /usr/bin/python3 bench/gloo_allreduce.py --n_gpus N -b 4K -e 64M -f 4 -n 20 -w 5
(other flags of ./collectives are accepted and ignored)."""
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def size_of(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def options(argv):
    o = {"n": 2, "b": 8, "e": 1 << 28, "f": 2, "iters": 20, "warmup": 5, "check": 1}
    i = 0
    while i < len(argv):
        flag, value = argv[i], argv[i + 1] if i + 1 < len(argv) else "0"
        if flag == "--n_gpus":
            o["n"] = int(value)
        elif flag == "-b":
            o["b"] = size_of(value)
        elif flag == "-e":
            o["e"] = size_of(value)
        elif flag == "-f":
            o["f"] = int(value)
        elif flag == "-n":
            o["iters"] = int(value)
        elif flag == "-w":
            o["warmup"] = int(value)
        elif flag == "-c":
            o["check"] = int(value)
        i += 2
    return o


def value(rank, count):
    """collective_value() of chapter 4: small integers, so that every sum is exact."""
    i = torch.arange(count, dtype=torch.int64)
    return ((i * 7 + rank * 13) % 101 - 50 + rank).to(torch.float32)


def worker(rank, o, store):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank,
                            world_size=o["n"])
    size = o["b"]
    while size <= o["e"]:
        count = size // 4
        buf = value(rank, count)
        wrong = 0
        if o["check"]:
            dist.all_reduce(buf)
            want = sum(value(r, count) for r in range(o["n"]))
            wrong = int((buf != want).sum())
        times = []
        for k in range(-o["warmup"], o["iters"]):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(buf)
            if k >= 0:
                times.append(time.perf_counter() - t0)
        times.sort()
        n = len(times)
        t = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
        algbw = size / t / 1e9 if t > 0 else 0.0
        busbw = algbw * 2 * (o["n"] - 1) / o["n"]
        if rank == 0:
            print("%12d %12d  float %10.2f %9.3f %9.3f %8d" % (size, count, t * 1e6, algbw,
                                                               busbw, wrong), flush=True)
        size = size * o["f"] if size else 1
    dist.destroy_process_group()


def main():
    o = options(sys.argv[1:])
    print("# gloo all-reduce (PyTorch %s), %d processes" % (torch.__version__, o["n"]))
    sys.stdout.flush()
    with tempfile.TemporaryDirectory() as d:
        mp.spawn(worker, args=(o, os.path.join(d, "store")), nprocs=o["n"], join=True)


if __name__ == "__main__":
    main()
