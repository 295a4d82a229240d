"""PyTorch's DistributedDataParallel with gloo, training the same MLP as ./train on the CPU:
N processes, each with its share of every global batch (DistributedSampler-free: rank r takes
the r-th slice of each global batch, as ./train does), plain SGD, the same data shape
(784 features, 10 classes, 20,000 samples) and the same hidden widths. Prints the samples/s
and ms/step of the last epoch, over all ranks, as bench/bench.sh reads them.
Usage: /usr/bin/python3 bench/torch_ddp.py N BATCH_PER_RANK EPOCHS HIDDEN (e.g. 128 or 1024,1024)
"""
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, n, batch, epochs, hidden, store, out):
    threads = max(1, (os.cpu_count() or 1) // n)
    torch.set_num_threads(threads)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=n)
    torch.manual_seed(1)
    samples, features, classes = 20000, 784, 10
    x = torch.randn(samples, features)
    y = torch.randint(0, classes, (samples,))
    widths = [features] + hidden + [classes]
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(torch.nn.ReLU())
    model = DDP(torch.nn.Sequential(*layers))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()
    global_batch = batch * n
    steps = samples // global_batch
    seconds = 0.0
    for epoch in range(epochs):
        g = torch.Generator().manual_seed(epoch)
        perm = torch.randperm(samples, generator=g)
        dist.barrier()
        start = time.perf_counter()
        for s in range(steps):
            idx = perm[s * global_batch + rank * batch:s * global_batch + (rank + 1) * batch]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
        dist.barrier()
        seconds = time.perf_counter() - start
    if rank == 0:
        with open(out, "w") as f:
            f.write("%.1f %.6f\n" % (steps * global_batch / seconds, 1e3 * seconds / steps))
    dist.destroy_process_group()


def main():
    n, batch, epochs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    hidden = [int(w) for w in sys.argv[4].split(",")] if len(sys.argv) > 4 else [128]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "result")
        mp.spawn(worker, args=(n, batch, epochs, hidden, os.path.join(d, "store"), out),
                 nprocs=n, join=True)
        print(open(out).read().strip())


if __name__ == "__main__":
    main()
