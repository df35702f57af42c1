# SPDX-License-Identifier: GPL-2.0
"""PyTorch workloads of bench/nvidia/run.sh, one per process.

  torch_work.py launch N [--profile]
      N launches of a trivial kernel (x.add_(1) on a 1-element CUDA
      tensor) after 1000 warm-up launches; prints
      "launch N host_ns_per_launch X" (host time of the launch loop alone,
      as spin.cu's tiny loop). --profile: inside torch.profiler with the
      CPU and CUDA activities (its post-processing at exit is not timed).
  torch_work.py resnet STEPS [--batch B] [--profile TRACE.json]
      torchvision ResNet-50 (random weights), batch B (32) of 224x224, bf16
      autocast, forward + backward + SGD step; 10 warm-up steps, then
      STEPS steps timed with torch.cuda.synchronize() on both ends; prints
      "resnet STEPS wall_s W img_per_s I issue_s S" (S: until the last
      step was issued, before the final synchronize: S near W means the
      host, not the GPU, sets the pace). --profile: the timed steps run
      inside torch.profiler (CPU + CUDA), whose trace is exported to
      TRACE.json (kernel durations for the accuracy comparison).
"""
import sys
import time

import torch


def profiler():
    from torch.profiler import ProfilerActivity, profile
    return profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])


def launch(n, prof):
    x = torch.zeros(1, device="cuda")
    for _ in range(1000):
        x.add_(1)
    torch.cuda.synchronize()

    def loop():
        for _ in range(1000):	# the profiler's own warm-up
            x.add_(1)
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(n):
            x.add_(1)
        t1 = time.perf_counter_ns()
        torch.cuda.synchronize()
        return (t1 - t0) / n

    if prof:
        with profiler():
            ns = loop()
    else:
        ns = loop()
    print("launch %d host_ns_per_launch %.1f" % (n, ns), flush=True)


def resnet(steps, batch, trace):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = torch.nn.CrossEntropyLoss()
    data = torch.randn(batch, 3, 224, 224, device="cuda")
    target = torch.randint(0, 1000, (batch,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = lossf(model(data), target)
        loss.backward()
        opt.step()

    for _ in range(10):
        step()
    torch.cuda.synchronize()

    def timed():
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        return time.perf_counter() - t0, t1 - t0


    if trace:
        with profiler() as p:
            wall, issue = timed()
        p.export_chrome_trace(trace)
    else:
        wall, issue = timed()
    print("resnet %d batch %d wall_s %.4f img_per_s %.1f issue_s %.4f"
          % (steps, batch, wall, steps * batch / wall, issue), flush=True)


def main():
    what, n = sys.argv[1], int(sys.argv[2])
    rest = sys.argv[3:]
    if what == "launch":
        launch(n, rest == ["--profile"])
    elif what == "resnet":
        opt = dict(zip(rest[::2], rest[1::2]))
        if len(rest) % 2 or set(opt) - {"--batch", "--profile"}:
            sys.exit("torch_work.py: resnet STEPS [--batch B] [--profile TRACE.json]")
        resnet(n, int(opt.get("--batch", "32")), opt.get("--profile"))
    else:
        sys.exit("torch_work.py: unknown workload '%s' (launch, resnet)" % what)


if __name__ == "__main__":
    main()
