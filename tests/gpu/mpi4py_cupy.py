"""mpi4py with CuPy arrays on Ferry (README "GPU buffers"): Allreduce and
Sendrecv on device arrays, checked against NumPy. Run under mpirun at 2+
ranks; prints "mpi4py_cupy: OK" from rank 0, or SKIPPED when this mpi4py is
not running on Ferry (it was built for another MPI's ABI)."""
import sys

from mpi4py import MPI
import cupy as cp
import numpy as np

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
version = MPI.Get_library_version()
if "Ferry" not in version:
    if rank == 0:
        print("mpi4py_cupy: SKIPPED: mpi4py runs on " + version.splitlines()[0])
    sys.exit(0)

for n in (1, 1000, 1 << 20):
    x = cp.arange(n, dtype=cp.float64) * (rank + 1)
    y = cp.empty_like(x)
    cp.cuda.runtime.deviceSynchronize()
    comm.Allreduce(x, y, op=MPI.SUM)
    want = np.arange(n, dtype=np.float64) * (size * (size + 1) / 2)
    assert np.array_equal(cp.asnumpy(y), want), f"rank {rank}: Allreduce of {n} doubles is wrong"

    right, left = (rank + 1) % size, (rank - 1) % size
    s = cp.full(n, rank, dtype=cp.int32)
    r = cp.full(n, -1, dtype=cp.int32)
    cp.cuda.runtime.deviceSynchronize()
    comm.Sendrecv(s, dest=right, recvbuf=r, source=left)
    assert int(cp.count_nonzero(r != left)) == 0, f"rank {rank}: Sendrecv of {n} ints from {left} is wrong"

comm.Barrier()
if rank == 0:
    print(f"mpi4py_cupy: OK ({size} ranks)")
