#!/usr/bin/env python3
"""Data-parallel SGD in NumPy with mpi4py: each rank computes the gradient of its own
batch, one MPI_Allreduce averages them, every rank takes the same step.

    mpirun -n 4 python3 examples/train_mpi4py.py --checkpoint /tmp/train.npz
    mpirun --max-restarts 1 -n 4 python3 examples/train_mpi4py.py --checkpoint /tmp/train.npz

mpi4py must be built against Ferry (scripts/clients builds it; see the README).
The model is linear regression with a tanh hidden layer, fitted to a fixed
map. Rank 0 saves the weights and the momentum every --checkpoint-every steps
(written beside the old file, then renamed over it); a job that mpirun
started again (TORCHELASTIC_RESTART_COUNT, or FERRY_RESTART_COUNT, above 0)
resumes from there and ends with the loss of an uninterrupted run, bit for bit.
"""
import argparse
import os
import sys
import time

import numpy as np
from mpi4py import MPI

FEATURES, HIDDEN, BATCH = 32, 64, 64


def batch_for(step, rank):
    """The batch of `rank` at `step`: the same in every run, whatever was restarted."""
    g = np.random.default_rng([step, rank])
    x = g.standard_normal((BATCH, FEATURES))
    w = np.random.default_rng(7).standard_normal((FEATURES, 1))
    return x, x @ w + 0.01 * g.standard_normal((BATCH, 1))


def loss_and_gradient(params, x, y):
    """Mean squared error of y ~ tanh(x W1 + b1) W2 + b2, and its gradient (backpropagation by hand)."""
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    err = h @ w2 + b2 - y
    loss = float(np.mean(err ** 2))
    d_out = 2.0 * err / err.size
    d_h = (d_out @ w2.T) * (1.0 - h ** 2)
    return loss, [x.T @ d_h, d_h.sum(axis=0), h.T @ d_out, d_out.sum(axis=0)]


def save(path, step, params, momentum):
    tmp = path + ".tmp.npz"  # np.savez adds .npz to a name without it
    np.savez(tmp, step=step, *params, *momentum)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--checkpoint", default="", help="checkpoint file, .npz (empty: none)")
    parser.add_argument("--checkpoint-every", type=int, default=50)
    parser.add_argument("--step-seconds", type=float, default=0.0,
                        help="sleep this long in each step (to watch or interrupt a short run)")
    args = parser.parse_args()

    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", os.environ.get("FERRY_RESTART_COUNT", "0")))
    init = np.random.default_rng(0)
    params = [0.3 * init.standard_normal((FEATURES, HIDDEN)), np.zeros(HIDDEN),
              0.3 * init.standard_normal((HIDDEN, 1)), np.zeros(1)]
    momentum = [np.zeros_like(p) for p in params]

    first = 0
    if restart > 0 and args.checkpoint and os.path.exists(args.checkpoint):
        with np.load(args.checkpoint) as saved:
            first = int(saved["step"])
            arrays = [saved[f"arr_{i}"] for i in range(2 * len(params))]
        params, momentum = arrays[:len(params)], arrays[len(params):]
        if rank == 0:
            print(f"restart {restart}: resuming at step {first} from {args.checkpoint}", flush=True)

    # One buffer for every gradient: one Allreduce per step.
    flat = np.empty(sum(p.size for p in params))
    loss = 0.0
    for step in range(first, args.steps):
        x, y = batch_for(step, rank)
        loss, grads = loss_and_gradient(params, x, y)
        np.concatenate([g.ravel() for g in grads], out=flat)
        comm.Allreduce(MPI.IN_PLACE, flat, op=MPI.SUM)
        flat /= world
        offset = 0
        for p, m in zip(params, momentum):
            g = flat[offset:offset + p.size].reshape(p.shape)
            offset += p.size
            m *= 0.9
            m += g
            p -= 0.02 * m
        if step == first and rank == 0:
            print(f"first step {step} at {time.time():.3f} (restart {restart})", flush=True)
        if args.checkpoint and rank == 0 and (step + 1) % args.checkpoint_every == 0:
            save(args.checkpoint, step + 1, params, momentum)
        if args.step_seconds > 0:
            time.sleep(args.step_seconds)

    mean = comm.allreduce(loss, op=MPI.SUM) / world
    if rank == 0:
        print(f"final loss {mean:.6f} after {args.steps} steps on {world} ranks ({mean.hex()})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
