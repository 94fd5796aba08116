#!/usr/bin/env bash
# The fixed costs of the GPU path, for tuning on a lent GPU in one short run
# (run.sh is the correctness check; this is not one): under MPS, where the
# machine has it, as run.sh's bench_mps step,
#   1. gpu_primitives: the latency of each CUDA driver call a small message
#      is made of (tests/gpu/primitives.cu);
#   2. gpu_bench --quick with FERRY_CUDA_PROFILE=1: the 8 B and 64 MiB
#      device rows, and every driver call Ferry made for them, counted and
#      timed per process;
#   3. gpu_bench --quick once per setting in PROBE_SETTINGS (default: the
#      allreduce ring's FERRY_COLL_MAX_SEGMENTS 1, 2, 4, 8 and 0), each a
#      space-separated list of VAR=value, ";" between settings.
# Same .gpu-deps/ as run.sh; output under $OUT (default build-gpu/).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
deps=$root/.gpu-deps
out=${OUT:-$root/build-gpu}
arch=x86_64-linux-gnu
export LD_LIBRARY_PATH="$deps/ferry/lib:$deps/root/usr/lib/$arch:$deps/root/lib/$arch:$deps/root/usr/lib/$arch/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PMIX_INSTALL_PREFIX=$deps/root/usr/lib/$arch/pmix2
export PMIX_MCA_mca_base_component_path=$PMIX_INSTALL_PREFIX/lib/pmix
mpirun=("$deps/ferry/bin/mpirun" --oversubscribe -n 2)
mkdir -p "$out"
for program in primitives bench; do
  nvcc -O2 -std=c++17 -I "$deps/ferry/include" -o "$out/gpu_$program" "$root/tests/gpu/$program.cu" \
    -L "$deps/ferry/lib" -lmpi -lcuda || exit 1
done
mps=0
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && mps=1
fi
echo "== under MPS: $mps"
echo "== primitives"
timeout 60 "${mpirun[@]}" "$out/gpu_primitives"
echo "== profile"
FERRY_CUDA_PROFILE=1 timeout 60 "${mpirun[@]}" "$out/gpu_bench" --quick
IFS=';' read -ra settings <<<"${PROBE_SETTINGS:-FERRY_COLL_MAX_SEGMENTS=1;FERRY_COLL_MAX_SEGMENTS=2;FERRY_COLL_MAX_SEGMENTS=4;FERRY_COLL_MAX_SEGMENTS=8;FERRY_COLL_MAX_SEGMENTS=0}"
for setting in "${settings[@]}"; do
  echo "== $setting"
  # shellcheck disable=SC2086
  env $setting timeout 60 "${mpirun[@]}" "$out/gpu_bench" --quick | sed "s|^|$setting |"
done
[[ $mps == 1 ]] && echo quit | nvidia-cuda-mps-control
exit 0
