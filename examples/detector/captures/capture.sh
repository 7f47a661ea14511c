#!/usr/bin/env bash
# capture.sh OUT_DIR — how every file in this folder was made, on one NVIDIA H200 (the device
# machine of the development workplace). Each step runs even if an earlier one failed; the log says
# which failed. Runs from any directory. SKIP_TORCH=1 leaves out the torchvision capture.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: capture.sh OUT_DIR}
mkdir -p "$out"
log="$out/detector_run_log.txt"
bld=/tmp/detector-build
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
export PYTHONUNBUFFERED=1

step() { echo; echo "=== $* ($(date -u +%T))"; }

{
  echo "# date (UTC)"; date -u +%Y-%m-%dT%H:%M:%SZ
  echo "# nvidia-smi"; nvidia-smi
  echo "# nvidia-smi --query-gpu"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,compute_cap --format=csv
  echo "# nvcc --version"; nvcc --version
  echo "# ncu --version ($NCU)"; "$NCU" --version
  echo "# python3, torch, torchvision"
  python3 -c 'import sys, torch, torchvision; print(sys.version.split()[0], torch.__version__, torchvision.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
  echo "# uname -r, nproc"; uname -r; nproc
} > "$out/environment.txt" 2>&1

{
  step "build (build.sh, sm_90)"
  "$here/build.sh" "$bld" || echo "BUILD FAILED"
  cat "$bld"/*.ptxas.txt > "$out/detector_ptxas_sm90.txt" 2>/dev/null

  step "correctness: every stage against the CPU reference"
  timeout 240 "$bld/detector" --batch 16; echo "exit code $?"

  step "bench: 300 timed iterations after 20 warm-up"
  timeout 120 "$bld/detector" --batch 16 --no-check --warmup 20 --bench 300 --csv "$out/detector_latency_ms.csv"; echo "exit code $?"

  step "ncu: first 210 kernel launches (29 per iteration: the first run, 6 bench iterations, 7 more), raw page, CSV"
  timeout 300 "$NCU" --clock-control none --launch-count 210 -f -o /tmp/detector_ncu \
    --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__block_size,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    "$bld/detector" --batch 16 --no-check --warmup 0 --bench 8 --csv /tmp/ncu_latency.csv; echo "exit code $?"
  "$NCU" --import /tmp/detector_ncu.ncu-rep --csv --page raw \
    --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__block_size,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    | grep '^"' > "$out/detector_ncu_raw.csv"
  [ "$(wc -l < "$out/detector_ncu_raw.csv")" -gt 2 ] || "$NCU" --import /tmp/detector_ncu.ncu-rep --csv --page raw | grep '^"' > "$out/detector_ncu_raw.csv"
  echo "ncu rows: $(wc -l < "$out/detector_ncu_raw.csv")"

  step "CMake build (checks CMakeLists.txt)"
  nv=$(python3 -c 'import nvidia; print(nvidia.__path__[0])' 2>/dev/null)
  timeout 180 bash -c "cmake -S '$here' -B /tmp/detector-cmake -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCUDNN_ROOT=$nv/cudnn -DCUBLAS_ROOT=$nv/cu13 > /tmp/cmake.log 2>&1 && cmake --build /tmp/detector-cmake >> /tmp/cmake.log 2>&1 && /tmp/detector-cmake/detector --batch 2 | tail -1"
  echo "exit code $?"; tail -5 /tmp/cmake.log
} > "$log" 2>&1

[ -n "${SKIP_TORCH:-}" ] || {
  step "torchvision fasterrcnn_resnet50_fpn: latency + profiler trace"
  timeout 300 python3 "$here/torch/profile_torchvision.py" "$out" --iters 200 --warmup 20 --batch 2 --size 640
  echo "exit code $?"
} > "$out/torch_log.txt" 2>&1

ls -la "$out"
grep -E "^(PASS|FAIL)|^bench:|exit code|ncu rows|BUILD" "$log"
tail -3 "$out/torch_log.txt"
