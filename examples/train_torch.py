#!/usr/bin/env python3
"""Data-parallel training with PyTorch, written for torchrun, started by Ferry's mpirun.

    mpirun -n 4 python3 examples/train_torch.py --checkpoint /tmp/train.pt
    mpirun --hostfile hosts -n 6 -x GLOO_SOCKET_IFNAME=eth0 python3 examples/train_torch.py ...
    torchrun --nproc_per_node 4 examples/train_torch.py ...     (the same script, unchanged)

Nothing here knows about MPI: init_process_group("env://") reads torchrun's
variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), which mpirun gives
every rank. The model is a small MLP fitting a fixed linear map, trained with
DistributedDataParallel on the CPU over Gloo.

Restarts: rank 0 saves a checkpoint every --checkpoint-every steps (written
beside the old one, then renamed over it, so a crash never leaves a torn
file). When the job is started again (mpirun --max-restarts N, or torchrun's)
TORCHELASTIC_RESTART_COUNT is above 0 and every rank resumes from the last
checkpoint. Each step's data depends only on the step, so a resumed run ends
with the same loss as an uninterrupted one, bit for bit: the last line prints
it exactly (float.hex).
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

FEATURES, HIDDEN, BATCH = 32, 64, 64


def batch_for(step, rank, world):
    """The batch of `rank` at `step`: the same in every run, whatever was restarted."""
    g = torch.Generator().manual_seed(1_000_003 * step + rank)
    x = torch.randn(BATCH, FEATURES, generator=g)
    true_map = torch.Generator().manual_seed(7)
    w = torch.randn(FEATURES, 1, generator=true_map)
    return x, x @ w + 0.01 * torch.randn(BATCH, 1, generator=g)


def save(path, step, model, optimizer):
    """torch.save to a file beside `path`, then an atomic rename over it."""
    tmp = path + ".tmp"
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--checkpoint", default="", help="checkpoint file (empty: none)")
    parser.add_argument("--checkpoint-every", type=int, default=50)
    parser.add_argument("--step-seconds", type=float, default=0.0,
                        help="sleep this long in each step (to watch or interrupt a short run)")
    args = parser.parse_args()

    dist.init_process_group("gloo")  # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    rank, world = dist.get_rank(), dist.get_world_size()
    restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    torch.manual_seed(0)
    torch.set_num_threads(1)  # ranks share the host's cores
    model = DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    # DDP regroups the gradients into new buckets after its first backward
    # pass, which changes the order of each sum. One pass whose gradients are
    # dropped makes every step, the first after a resume too, use the final
    # buckets: a resumed run then adds up exactly as an uninterrupted one.
    x, y = batch_for(0, rank, world)
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.zero_grad()

    first = 0
    if restart > 0 and args.checkpoint and os.path.exists(args.checkpoint):
        state = torch.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        first = state["step"]
        if rank == 0:
            print(f"restart {restart}: resuming at step {first} from {args.checkpoint}", flush=True)

    loss = torch.zeros(())
    for step in range(first, args.steps):
        x, y = batch_for(step, rank, world)
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()  # DDP averages the gradients over the ranks here
        optimizer.step()
        if step == first and rank == 0:
            print(f"first step {step} at {time.time():.3f} (restart {restart})", flush=True)
        if args.checkpoint and rank == 0 and (step + 1) % args.checkpoint_every == 0:
            save(args.checkpoint, step + 1, model, optimizer)
        if args.step_seconds > 0:
            time.sleep(args.step_seconds)

    total = loss.detach().clone()
    dist.all_reduce(total)
    if rank == 0:
        mean = total.item() / world
        print(f"final loss {mean:.6f} after {args.steps} steps on {world} ranks ({float(mean).hex()})", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
