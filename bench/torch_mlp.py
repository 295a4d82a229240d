"""The same MLP as ./mlp (ReLU hidden layers, softmax cross-entropy, plain SGD at lr 0.05),
trained by PyTorch eager with the same batch and data shape, the data already on the device.
Prints the samples/s and ms per step of the median epoch after the first, the statistic
make bench takes from ./mlp's --log.
Usage: python3 bench/torch_mlp.py BATCH EPOCHS THREADS [HIDDEN [DEVICE]]
  HIDDEN: widths as ./mlp's --hidden (default 128; 0: none); DEVICE: cpu (default) or cuda.
Prints: samples_per_s step_ms."""
import sys
import time

import torch

batch, epochs, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
hidden = [int(w) for w in (sys.argv[4] if len(sys.argv) > 4 else "128").split(",") if w != "0"]
dev = sys.argv[5] if len(sys.argv) > 5 else "cpu"
torch.set_num_threads(threads)
torch.manual_seed(1)
n, features, classes = 20000, 784, 10
x = torch.randn(n, features, device=dev)
y = torch.randint(0, classes, (n,), device=dev)
layers, width = [], features
for h in hidden:
    layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
    width = h
layers.append(torch.nn.Linear(width, classes))
model = torch.nn.Sequential(*layers).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = torch.nn.CrossEntropyLoss()
steps = n // batch
seconds = []


def wait():
    if dev != "cpu":
        torch.cuda.synchronize()


for epoch in range(epochs):
    perm = torch.randperm(n, device=dev)
    wait()
    start = time.perf_counter()
    for s in range(steps):
        idx = perm[s * batch:(s + 1) * batch]
        xb, yb = x[idx], y[idx]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
    wait()
    seconds.append(time.perf_counter() - start)
later = sorted(seconds[1:] or seconds)
median = later[len(later) // 2]  # by samples/s the lower middle, as make bench's median() takes it
print(f"{steps * batch / median:.0f} {1e3 * median / steps:.4f}")
