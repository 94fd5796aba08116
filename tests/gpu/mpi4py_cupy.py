"""mpi4py with CuPy arrays on Ferry (README "GPU buffers"): Allreduce,
Sendrecv and Bcast on device arrays, checked against NumPy; then, through
derived datatypes on device arrays, the GPU pack kernels (issue 33: an
indexed type and a subarray sent between ranks) and MPI_Pack_external from
and into device memory. Run under mpirun at 2 to 4 ranks; prints "mpi4py_cupy: OK" from rank 0, or SKIPPED when this mpi4py is
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

    b = cp.arange(n, dtype=cp.int64) if rank == size - 1 else cp.zeros(n, dtype=cp.int64)
    cp.cuda.runtime.deviceSynchronize()
    comm.Bcast(b, root=size - 1)
    assert np.array_equal(cp.asnumpy(b), np.arange(n, dtype=np.int64)), f"rank {rank}: Bcast of {n} is wrong"

# Non-contiguous types on device memory: the pack kernels gather and scatter
# them chunk by chunk (one launch per 256 KiB chunk).
right, left = (rank + 1) % size, (rank - 1) % size
blocklengths = [3, 1, 7, 2] * 4096
displacements = list(range(0, 16 * len(blocklengths), 16))
indexed = MPI.DOUBLE.Create_indexed(blocklengths, displacements).Commit()
span = displacements[-1] + blocklengths[-1]
src = cp.arange(span, dtype=cp.float64) + 1000 * rank
dst = cp.full(span, -1.0, dtype=cp.float64)
cp.cuda.runtime.deviceSynchronize()
comm.Sendrecv([src, 1, indexed], dest=right, recvbuf=[dst, 1, indexed], source=left)
want = np.full(span, -1.0)
for length, at in zip(blocklengths, displacements):
    want[at:at + length] = np.arange(at, at + length) + 1000 * left
assert np.array_equal(cp.asnumpy(dst), want), f"rank {rank}: indexed type on the GPU from {left} is wrong"
indexed.Free()

sub = MPI.FLOAT.Create_subarray([512, 512], [300, 200], [17, 100]).Commit()
a = cp.arange(512 * 512, dtype=cp.float32).reshape(512, 512) + rank
c = cp.zeros((512, 512), dtype=cp.float32)
cp.cuda.runtime.deviceSynchronize()
comm.Sendrecv([a, 1, sub], dest=right, recvbuf=[c, 1, sub], source=left)
want = np.zeros((512, 512), dtype=np.float32)
want[17:317, 100:300] = (np.arange(512 * 512, dtype=np.float32).reshape(512, 512) + left)[17:317, 100:300]
assert np.array_equal(cp.asnumpy(c), want), f"rank {rank}: subarray on the GPU from {left} is wrong"
sub.Free()

# MPI_Pack_external from and into device memory (big-endian on the wire).
x = cp.arange(1000, dtype=cp.int32) * (rank + 1)
packed = cp.zeros(MPI.INT.Pack_external_size("external32", 1000), dtype=cp.uint8)
cp.cuda.runtime.deviceSynchronize()
MPI.INT.Pack_external("external32", x, packed, 0)
assert np.array_equal(cp.asnumpy(packed).view(">i4"), np.arange(1000, dtype=np.int32) * (rank + 1)), \
    f"rank {rank}: MPI_Pack_external from device memory is wrong"
back = cp.zeros(1000, dtype=cp.int32)
MPI.INT.Unpack_external("external32", packed, 0, back)
assert np.array_equal(cp.asnumpy(back), cp.asnumpy(x)), f"rank {rank}: MPI_Unpack_external into device memory"

comm.Barrier()
if rank == 0:
    print(f"mpi4py_cupy: OK ({size} ranks)")
