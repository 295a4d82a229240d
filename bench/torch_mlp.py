"""The same MLP as ./mlp (784-128-10, ReLU, softmax cross-entropy, plain SGD), trained by
PyTorch on the CPU with the same batch and data shape: samples/s of the last epoch.
Usage: python3 bench/torch_mlp.py BATCH EPOCHS THREADS. Prints: samples_per_s step_ms."""
import sys
import time

import torch

batch, epochs, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
torch.manual_seed(1)
n, features, classes = 20000, 784, 10
x = torch.randn(n, features)
y = torch.randint(0, classes, (n,))
model = torch.nn.Sequential(torch.nn.Linear(features, 128), torch.nn.ReLU(),
                            torch.nn.Linear(128, classes))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = torch.nn.CrossEntropyLoss()
steps = n // batch
for epoch in range(epochs):
    perm = torch.randperm(n)
    start = time.perf_counter()
    for s in range(steps):
        idx = perm[s * batch:(s + 1) * batch]
        xb, yb = x[idx], y[idx]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - start
print(f"{steps * batch / seconds:.0f} {1e3 * seconds / steps:.4f}")
