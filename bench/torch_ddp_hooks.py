"""PyTorch's DistributedDataParallel with gloo and its gradient-compression hooks, training the
same MLP as ./train --strategy ring on the CPU, on the same MNIST-format files (bench/
compress_data.py writes them; pixels / 255, as ./train --data reads them): N ranks, each with
its share of every global batch (no DistributedSampler: a per-epoch global shuffle, the same
on every rank, and rank r takes the r-th slice of each global batch, as ./train does), plain
SGD at lr 0.05, cross-entropy, 20,000 // (N x BATCH) steps an epoch (the rest dropped), the
initial weights drawn as ./train draws them (N(0, 2/in) for hidden layers, N(0, 2/(in + out))
for the output layer, biases 0; other random numbers).
Test accuracy after every epoch (rank 0, the whole test set; not timed), and the per-epoch
rows of ./train --log: epoch,loss,train_acc,test_acc,seconds,samples_per_s,step_ms,state_bytes
(seconds: that epoch's training between two barriers; loss and train_acc over all ranks).

--config picks the hook (bench/bench.sh's compress part; its CSV's comment line says the same):
  fp32         no hook (DDP's own all-reduce of fp32 buckets)
  fp16         default_hooks.fp16_compress_hook (the bucket divided by N, cast to fp16, summed
               in fp16 by gloo; no loss scaling: PyTorch 1.13 has no GradScaler on the CPU)
  bf16         default_hooks.bf16_compress_hook where gloo can all-reduce bfloat16; PyTorch
               1.13's gloo cannot ("Invalid scalar type"), and then ours-in-PyTorch: bf16 on
               the wire, summed in fp32 (all_to_all of each rank's share, then all_gather:
               2(N-1)/N x n x 2 bytes, a ring's traffic)
  powersgd:R   powerSGD_hook.powerSGD_hook with PowerSGDState(matrix_approximation_rank=R,
               start_powerSGD_iter=2, min_compression_rate=2, use_error_feedback=True,
               warm_start=True): start_powerSGD_iter must be > 1 with error feedback or warm
               start (PowerSGDState refuses 1), so the first 2 steps are plain all-reduces;
               each bucket's hook is waited for before the next bucket's (see serially())
  topk:F       ours-in-PyTorch (PyTorch has no top-k hook): each bucket's F x n largest entries
               of gradient + residual (error feedback), int32 indices and fp32 values
               exchanged by all_gather, summed, divided by N
Bytes per step: what one rank sends per step of the last epoch, counted at the hooks' calls
with a ring's formulas (all_reduce 2(N-1)/N x bytes, all_gather (N-1) x bytes, all_to_all
(N-1)/N x bytes); fp32 (no hook, so no call to count): 2(N-1)/N x n x 4.

Usage: /usr/bin/python3 bench/torch_ddp_hooks.py --data DIR --config C --log FILE.csv
         [--n 4] [--batch 64] [--epochs 5] [--hidden 128 | 1024,1024]
       across hosts, one launcher per host (GLOO_SOCKET_IFNAME=eth0, a file:// store every
       host can read): ... --n 4 --local 2 --rank_base 0|2 --store /shared/dir/store
Rank 0 writes the log and prints one line:
  final: loss L train_acc A test_acc T bytes_per_step B hook DESCRIPTION
"""
import argparse
import datetime
import math
import os
import struct
import sys
import tempfile
import time
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
from torch.nn.parallel import DistributedDataParallel as DDP

SENT = {"on": False, "bytes": 0.0}  # what this rank sends, by the ring's formulas


def nbytes(t):
    return t.numel() * t.element_size()


def counting(name, share):
    """Wrap dist.NAME so that its calls add share(N) x the tensor's bytes to SENT."""
    real = getattr(dist, name)

    def wrapped(*args, **kw):
        if SENT["on"]:
            n = dist.get_world_size()
            t = args[1] if name in ("all_gather", "all_to_all_single") else args[0]
            SENT["bytes"] += share(n) * nbytes(t)
        return real(*args, **kw)
    setattr(dist, name, wrapped)  # the hooks call dist.all_reduce: they see this one


counting("all_reduce", lambda n: 2 * (n - 1) / n)
counting("all_gather", lambda n: n - 1)
counting("all_to_all_single", lambda n: (n - 1) / n)


def read_idx(d, stem):
    with open(os.path.join(d, stem + "-images-idx3-ubyte"), "rb") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        assert magic == 0x803, "not an IDX image file"
        x = torch.frombuffer(bytearray(f.read(n * rows * cols)), dtype=torch.uint8)
    with open(os.path.join(d, stem + "-labels-idx1-ubyte"), "rb") as f:
        magic, m = struct.unpack(">II", f.read(8))
        assert magic == 0x801 and m == n, "not the label file of these images"
        y = torch.frombuffer(bytearray(f.read(n)), dtype=torch.uint8)
    return x.view(n, rows * cols).float() / 255.0, y.long()


def done(t):
    fut = torch.futures.Future()
    fut.set_result(t)
    return fut


class TopK:
    """Ours-in-PyTorch: top-k with error feedback, exchanged by all_gather."""

    def __init__(self, fraction):
        self.fraction, self.residual = fraction, {}

    def hook(self, state, bucket):
        buf = bucket.buffer()
        n, size = buf.numel(), dist.get_world_size()
        e = self.residual.get(bucket.index())
        if e is None or e.numel() != n:
            e = self.residual[bucket.index()] = torch.zeros_like(buf)
        e.add_(buf)
        k = max(1, math.ceil(self.fraction * n))
        idx = torch.topk(e.abs(), k, sorted=False).indices
        vals = e[idx]
        e[idx] = 0  # what was sent leaves the residual; the rest waits for later steps
        idx32 = idx.to(torch.int32)
        all_idx = [torch.empty_like(idx32) for _ in range(size)]
        all_vals = [torch.empty_like(vals) for _ in range(size)]
        dist.all_gather(all_idx, idx32)
        dist.all_gather(all_vals, vals)
        out = torch.zeros_like(buf)
        for i, v in zip(all_idx, all_vals):
            out.index_add_(0, i.long(), v)
        return done(out.div_(size))

    def state_bytes(self):
        return sum(nbytes(t) for t in self.residual.values())


def bf16_ring_hook(state, bucket):
    """Ours-in-PyTorch: bf16 on the wire (carried as 16-bit words), summed in fp32."""
    buf = bucket.buffer()
    n, size = buf.numel(), dist.get_world_size()
    c = -(-n // size)
    x = torch.zeros(c * size, dtype=torch.bfloat16)
    x[:n] = buf.to(torch.bfloat16)
    got = torch.empty(c * size, dtype=torch.float16)
    dist.all_to_all_single(got, x.view(torch.float16))  # share j of every rank to rank j
    mine = got.view(torch.bfloat16).view(size, c).float().sum(0).div_(size)
    parts = [torch.empty(c, dtype=torch.float16) for _ in range(size)]
    dist.all_gather(parts, mine.to(torch.bfloat16).view(torch.float16))
    return done(torch.cat(parts).view(torch.bfloat16)[:n].float())


def serially(hook):
    """HOOK, waited for before the next bucket's: powerSGD_hook issues its second all-reduce
    from the first one's callback, so with two buckets (the heavy model's) the ranks issued
    gloo's collectives in different orders and gloo aborted (pair.cc: op.preamble.length <=
    op.nbytes); one bucket at a time keeps the order the same on every rank."""
    def wrapped(state, bucket):
        fut = hook(state, bucket)
        fut.wait()
        return fut
    return wrapped


def gloo_has_bf16():
    try:
        dist.all_reduce(torch.zeros(1, dtype=torch.bfloat16))
        return True
    except RuntimeError:
        return False


def attach(model, config):
    """Register config's hook; return its description and a function of its state's bytes."""
    none = lambda: 0  # noqa: E731
    if config == "fp32":
        return "none (fp32 all-reduce)", none
    if config == "fp16":
        model.register_comm_hook(None, default_hooks.fp16_compress_hook)
        return "default_hooks.fp16_compress_hook (no loss scaling)", none
    if config == "bf16":
        if gloo_has_bf16():
            model.register_comm_hook(None, default_hooks.bf16_compress_hook)
            return "default_hooks.bf16_compress_hook", none
        model.register_comm_hook(None, bf16_ring_hook)
        return "ours-in-PyTorch bf16 all_to_all+all_gather (gloo has no bf16 all-reduce)", none
    if config.startswith("powersgd:"):
        r = int(config.split(":")[1])
        state = powerSGD_hook.PowerSGDState(
            process_group=None, matrix_approximation_rank=r, start_powerSGD_iter=2,
            min_compression_rate=2, use_error_feedback=True, warm_start=True)
        model.register_comm_hook(state, serially(powerSGD_hook.powerSGD_hook))
        return ("powerSGD_hook.powerSGD_hook rank %d, waited for bucket by bucket" % r,
                lambda: sum(nbytes(t) for d in (state.error_dict, state.p_memory_dict,
                                                 state.q_memory_dict) for t in d.values()))
    if config.startswith("topk:"):
        topk = TopK(float(config.split(":")[1]))
        model.register_comm_hook(None, topk.hook)
        return "ours-in-PyTorch top-k all_gather, error feedback", topk.state_bytes
    sys.exit("torch_ddp_hooks: --config %s: fp32, fp16, bf16, powersgd:R or topk:F" % config)


def worker(local, a):
    warnings.filterwarnings("ignore")
    rank, n = a.rank_base + local, a.n
    torch.set_num_threads(1)  # as ./train's ranks: one OpenBLAS thread each
    dist.init_process_group("gloo", init_method="file://" + a.store, rank=rank, world_size=n,
                            timeout=datetime.timedelta(seconds=a.timeout))
    x, y = read_idx(a.data, "train")
    tx, ty = read_idx(a.data, "t10k")
    torch.manual_seed(1)
    widths = [x.shape[1]] + a.hidden + [10]
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    with torch.no_grad():  # ./train's scheme (chapter 1), other draws: He, Glorot at the output
        linear = [m for m in net if isinstance(m, torch.nn.Linear)]
        for i, m in enumerate(linear):
            fan = m.in_features + (m.out_features if i == len(linear) - 1 else 0)
            m.weight.normal_(0.0, math.sqrt(2.0 / fan))
            m.bias.zero_()
    model = DDP(net)
    hook, hook_state = attach(model, a.config)
    params = sum(p.numel() for p in net.parameters())
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    global_batch = a.batch * n
    steps = x.shape[0] // global_batch
    rows = []
    for epoch in range(1, a.epochs + 1):
        perm = torch.randperm(x.shape[0], generator=torch.Generator().manual_seed(a.seed + epoch))
        stats = torch.zeros(3, dtype=torch.float64)  # loss x samples, right answers, samples
        SENT["bytes"] = 0.0
        dist.barrier()
        start = time.perf_counter()
        SENT["on"] = True
        for s in range(steps):
            idx = perm[s * global_batch + rank * a.batch:s * global_batch + (rank + 1) * a.batch]
            opt.zero_grad(set_to_none=True)
            out = model(x[idx])
            loss = loss_fn(out, y[idx])
            loss.backward()
            opt.step()
            with torch.no_grad():
                stats += torch.tensor([loss.item() * len(idx), (out.argmax(1) == y[idx]).sum().item(),
                                       len(idx)], dtype=torch.float64)
        SENT["on"] = False
        dist.barrier()
        seconds = time.perf_counter() - start
        dist.all_reduce(stats)
        test_acc = 0.0
        if rank == 0:
            with torch.no_grad():
                test_acc = (net(tx).argmax(1) == ty).float().mean().item()
        sent = SENT["bytes"] / steps if a.config != "fp32" else 2 * (n - 1) / n * params * 4
        rows.append("%d,%.6f,%.6f,%.6f,%.6f,%.1f,%.6f,%d" % (
            epoch, stats[0] / stats[2], stats[1] / stats[2], test_acc, seconds,
            steps * global_batch / seconds, 1e3 * seconds / steps,
            params * 4 * 2 + hook_state()))
        dist.barrier()
    if rank == 0:
        with open(a.log, "w") as f:
            f.write("epoch,loss,train_acc,test_acc,seconds,samples_per_s,step_ms,state_bytes\n")
            f.write("\n".join(rows) + "\n")
        last = rows[-1].split(",")
        print("final: loss %.4f train_acc %.4f test_acc %.4f bytes_per_step %.0f hook %s" % (
            float(last[1]), float(last[2]), float(last[3]), sent, hook), flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--config", default="fp32")
    p.add_argument("--log", required=True)
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--hidden", default="128")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--local", type=int, default=0, help="ranks this launcher starts (default: --n)")
    p.add_argument("--rank_base", type=int, default=0)
    p.add_argument("--store", default="")
    p.add_argument("--timeout", type=float, default=300, help="seconds a rank waits for a peer")
    a = p.parse_args()
    a.hidden = [int(w) for w in a.hidden.split(",") if int(w) > 0]
    a.local = a.local or a.n
    with tempfile.TemporaryDirectory() as d:
        a.store = a.store or os.path.join(d, "store")
        mp.spawn(worker, args=(a,), nprocs=a.local, join=True)


if __name__ == "__main__":
    main()
