# SPDX-License-Identifier: GPL-2.0
"""A PyTorch DDP training loop with NCCL all-reduce, one process per GPU
(torchrun --nproc_per_node N), for tests/nvidia/multi_check.sh.

usage: torchrun --standalone --nproc_per_node N ddp_step.py STEPS

Each step: forward, backward (DDP all-reduces the gradients with NCCL),
SGD step. NVLink multicast must be off in every process: the caller sets
NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1;
this refuses to run without them.
"""
import os
import sys

for var, val in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                 ("NVSHMEM_DISABLE_NVLS", "1")):
    if os.environ.get(var) != val:
        sys.exit("ddp_step.py: %s=%s must be set (NVLink multicast off)" % (var, val))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
dist.init_process_group("nccl")
rank = dist.get_rank()
local = int(os.environ.get("LOCAL_RANK", rank))
torch.cuda.set_device(local)
model = torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.ReLU(),
                            torch.nn.Linear(2048, 2048)).cuda()
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
x = torch.randn(512, 2048, device="cuda")
for _ in range(steps):
    opt.zero_grad()
    ddp(x).square().mean().backward()
    opt.step()
torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d: %d steps on cuda:%d" % (rank, steps, local))
