#!/usr/bin/env bash
# The GPU checks of issue 16, for a machine with an NVIDIA GPU, its driver,
# nvcc, and (for the last step) CuPy and mpi4py. Such a machine need not have
# PMIx, hwloc or libssh: run scripts/gpu-bundle on a Debian 12 machine first
# and carry .gpu-deps/ along (README "GPU buffers").
#
#   tests/gpu/run.sh          builds the programs into build-gpu/ (or $OUT)
#                             and runs them; exits non-zero if any fails
#
# 0. gpu_reduce_kernels (tests/gpu/reduce_kernels.cc), where the bundled
#    build had nvcc: every GPU reduction kernel against the host path, the
#    pack kernels (issue 33) against memcpy, and the bandwidth of a large sum.
# 1. gpu_p2p at 2 ranks over shared memory, then over TCP: every size class,
#    both directions, host/pinned/device/managed pairings, a buffer allocated
#    before MPI_Init, a kernel on the legacy default stream writing the send
#    buffer just before MPI_Send, a vector type on device memory, a buffer on
#    a second GPU if there is one.
# 2. gpu_coll at 2, 3 and 4 ranks on one GPU: every blocking collective with
#    device buffers, MPI_IN_PLACE, the predefined ops, a user-defined op.
# 3. gpu_io at 2 and 4 ranks on one GPU: MPI_File_write_all from device
#    buffers and read_all back into device buffers, byte for byte; the
#    nonblocking iwrite_at/iread_at; a strided memory type on the GPU.
# 2b. gpu_coll --onepass at 2 and 4 ranks with FERRY_DEBUG=cuda: the
#    one-pass allreduce, reduce_scatter_block, allgather and bcast over CUDA
#    IPC (issue 33) checked, and each one's debug line must appear.
# 3b. gpu_bench at 2 ranks: ping-pong and allreduce rows for host and device
#    buffers, and the host rows again with FERRY_CUDA=off (host programs
#    must lose nothing to FERRY_CUDA=auto); at 4 ranks the allreduce rows;
#    the 2-rank device rows again with the one pass off
#    (FERRY_CUDA_ONEPASS_THRESHOLD=-1); each with its floor
#    (allreduce-floor-npN: N ranks' cudaMemcpy of the bytes).
# 4. Steps 1 and 3 again under CUDA MPS, where the machine has it, and the
#    one-pass checks at 4 ranks and the quick allreduce rows at 2 and 4
#    ranks, with the one pass and without; and 3b over the TCP transport
#    (the path between hosts, here on one host).
# 5. mpi4py with CuPy arrays at 2, 3 and 4 ranks: Allreduce, Sendrecv and
#    Bcast on device arrays; an indexed type and a subarray on device arrays
#    (the pack kernels of issue 33); MPI_Pack_external to and from device
#    memory. The TCP transport at 2 ranks too (chunks staged across hosts).
#
# GPU_STEP_TIMEOUT (seconds, default 300) bounds each step.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
deps=$root/.gpu-deps
out=${OUT:-$root/build-gpu}
if [[ ! -x $deps/ferry/bin/mpirun ]]; then
  echo "run.sh: $deps is missing: run scripts/gpu-bundle on a Debian 12 machine and carry .gpu-deps here" >&2
  exit 2
fi
arch=x86_64-linux-gnu
export LD_LIBRARY_PATH="$deps/ferry/lib:$deps/root/usr/lib/$arch:$deps/root/lib/$arch:$deps/root/usr/lib/$arch/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PMIX_INSTALL_PREFIX=$deps/root/usr/lib/$arch/pmix2
# PMIx looks for its plugins where it was built to; a machine with another
# PMIx installed there would lend it plugins of the wrong version.
export PMIX_MCA_mca_base_component_path=$PMIX_INSTALL_PREFIX/lib/pmix
# The bundle is built on Debian 12: it needs glibc 2.34 and libstdc++ with
# GLIBCXX_3.4.30 (GCC 12) or newer, as Ubuntu 22.04 and later have.
if missing=$(ldd "$deps/ferry/bin/mpirun" "$deps/ferry/lib/libmpi.so.12" 2>&1 | grep -E 'not found'); then
  echo "run.sh: the bundled Ferry cannot load here:" >&2
  echo "$missing" >&2
  exit 2
fi
mpirun=("$deps/ferry/bin/mpirun" --oversubscribe)
mkdir -p "$out"
nvidia-smi -L || true

failures=0
step() {  # step NAME COMMAND...: runs it with a timeout, keeps its output in $out/NAME.log
  local name=$1
  shift
  echo "== $name: $*"
  timeout "${GPU_STEP_TIMEOUT:-300}" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  if [[ $rc -eq 0 ]]; then
    tail -n 3 "$out/$name.log"
    echo "== $name: passed"
  else
    tail -n 30 "$out/$name.log"
    echo "== $name: FAILED (exit $rc$([[ $rc -eq 124 ]] && echo ', timed out'))"
    failures=$((failures + 1))
  fi
}

if [[ -x $deps/ferry/bin/gpu_reduce_kernels ]]; then
  step reduce_kernels "$deps/ferry/bin/gpu_reduce_kernels"
  grep -h '^gpu-reduce' "$out/reduce_kernels.log"
else
  echo "== reduce_kernels: SKIPPED (the bundled build had no nvcc: no GPU reduction kernels)"
fi

for program in p2p coll io bench; do
  step "build_$program" nvcc -O2 -std=c++17 -I "$deps/ferry/include" -o "$out/gpu_$program" \
    "$root/tests/gpu/$program.cu" -L "$deps/ferry/lib" -lmpi -lcuda
done

step p2p_shm env FERRY_CUDA=on FERRY_DEBUG=cuda "${mpirun[@]}" -n 2 "$out/gpu_p2p"
step p2p_tcp env FERRY_CUDA=on FERRY_TRANSPORTS=tcp "${mpirun[@]}" -n 2 "$out/gpu_p2p"
for n in 2 3 4; do
  step "coll_np$n" env FERRY_CUDA=on "${mpirun[@]}" -n "$n" "$out/gpu_coll"
done
# The one-pass allreduce over CUDA IPC (issue 33): its checks alone, with
# the debug line that says the path ran.
for n in 2 4; do
  step "onepass_np$n" env FERRY_CUDA=on FERRY_DEBUG=cuda "${mpirun[@]}" -n "$n" "$out/gpu_coll" --onepass
  for call in MPI_Allreduce MPI_Reduce_scatter_block MPI_Allgather MPI_Bcast; do
    if ! grep -q "$call of .* one pass over CUDA IPC" "$out/onepass_np$n.log"; then
      echo "== onepass_np$n: FAILED (no '$call ... one pass over CUDA IPC' line: that path never ran)"
      failures=$((failures + 1))
    fi
  done
done
for n in 2 4; do
  step "io_np$n" env FERRY_CUDA=on "${mpirun[@]}" -n "$n" "$out/gpu_io" "$out"
done
step bench_auto env FERRY_CUDA=auto "${mpirun[@]}" -n 2 "$out/gpu_bench"
step bench_np4 env FERRY_CUDA=auto "${mpirun[@]}" -n 4 "$out/gpu_bench"
# Today's path without the one pass, for comparison in the same run.
step bench_usual env FERRY_CUDA=auto FERRY_CUDA_ONEPASS_THRESHOLD=-1 "${mpirun[@]}" -n 2 "$out/gpu_bench" --quick
step bench_host_cuda_off env FERRY_CUDA=off "${mpirun[@]}" -n 2 "$out/gpu_bench"
grep -h '^gpu-bench' "$out/bench_auto.log" "$out/bench_np4.log" | sed 's/^/FERRY_CUDA=auto /'
grep -h '^gpu-bench allreduce' "$out/bench_usual.log" | sed 's/^/ONEPASS=off /'
grep -h '^gpu-bench .*-host' "$out/bench_host_cuda_off.log" | sed 's/^/FERRY_CUDA=off  /'

# The same with the ranks' GPU work funnelled through one MPS server (one
# context on the GPU, so the ranks' copies need no switch between contexts),
# where the machine has MPS.
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    step p2p_shm_mps env FERRY_CUDA=on "${mpirun[@]}" -n 2 "$out/gpu_p2p"
    step bench_mps env FERRY_CUDA=auto "${mpirun[@]}" -n 2 "$out/gpu_bench"
    grep -h '^gpu-bench' "$out/bench_mps.log" | sed 's/^/MPS /'
    step onepass_mps_np4 env FERRY_CUDA=on "${mpirun[@]}" -n 4 "$out/gpu_coll" --onepass
    for n in 2 4; do
      step "bench_mps_quick_np$n" env FERRY_CUDA=auto "${mpirun[@]}" -n "$n" "$out/gpu_bench" --quick
      step "bench_mps_usual_np$n" env FERRY_CUDA=auto FERRY_CUDA_ONEPASS_THRESHOLD=-1 "${mpirun[@]}" -n "$n" \
        "$out/gpu_bench" --quick
      grep -h '^gpu-bench' "$out/bench_mps_quick_np$n.log" | sed 's/^/MPS /'
      grep -h '^gpu-bench allreduce' "$out/bench_mps_usual_np$n.log" | sed 's/^/MPS ONEPASS=off /'
    done
    # The TCP transport between the two ranks, as between two hosts: the
    # device rows (staged in chunks, copies overlapped with the socket)
    # against the host rows over the same sockets.
    step bench_tcp_mps env FERRY_CUDA=auto FERRY_TRANSPORTS=tcp "${mpirun[@]}" -n 2 "$out/gpu_bench"
    grep -h '^gpu-bench' "$out/bench_tcp_mps.log" | sed 's/^/MPS TCP /'
    echo quit | nvidia-cuda-mps-control
  else
    echo "== MPS: SKIPPED (nvidia-cuda-mps-control -d failed)"
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
else
  echo "== MPS: SKIPPED (no nvidia-cuda-mps-control)"
fi

if python3 -c 'import mpi4py, cupy' 2>/dev/null; then
  for n in 2 3 4; do
    step "mpi4py_cupy_np$n" env FERRY_CUDA=on "${mpirun[@]}" -n "$n" python3 "$root/tests/gpu/mpi4py_cupy.py"
  done
  step mpi4py_cupy_tcp env FERRY_CUDA=on FERRY_TRANSPORTS=tcp "${mpirun[@]}" -n 2 python3 \
    "$root/tests/gpu/mpi4py_cupy.py"
else
  echo "== mpi4py_cupy: SKIPPED (python3 cannot import mpi4py and cupy)"
fi

echo "run.sh: $failures step(s) failed; logs in $out"
[[ $failures -eq 0 ]]
