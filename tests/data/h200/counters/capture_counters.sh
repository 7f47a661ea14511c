#!/usr/bin/env bash
# capture_counters.sh OUT_DIR — Nsight Compute counter captures on one NVIDIA GPU, as validation data for
# counter parity. Run from the repository root. Each step runs even if an earlier one failed.
#   resnet50_ncu_raw.csv       ncu --page raw --csv, the metrics below, 160 launches of torchvision ResNet-50
#   resnet50_ncu_details.csv.gz   ncu --page details --csv of the same report (sections below), gzip -9n
#   detector_ncu_raw.csv       the same metrics, 58 launches (2 iterations) of examples/detector --batch 16
#   detector_ncu_details.csv.gz   details page of that report, gzip -9n
#   counters_log.txt           versions and the commands' output
set -u
out=${1:?usage: capture_counters.sh OUT_DIR}
here=$(cd "$(dirname "$0")/../../../.." && pwd)
mkdir -p "$out"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
METRICS=gpu__time_duration.sum,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__block_size,launch__grid_size,launch__waves_per_multiprocessor,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,compute_cap --format=csv
  "$NCU" --version
  python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)'
  cat > /tmp/r50_ncu.py <<'PY'
import torch, torchvision
torch.backends.cudnn.benchmark = False
m = torchvision.models.resnet50(weights=None).eval().cuda()
x = torch.randn(8, 3, 224, 224, device="cuda")
with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16):
    for _ in range(4):
        m(x)
torch.cuda.synchronize()
PY
  echo "=== resnet50 ncu"
  timeout 420 "$NCU" --clock-control none --launch-skip 320 --launch-count 160 -f -o /tmp/r50 $SECTIONS --metrics "$METRICS" python3 /tmp/r50_ncu.py; echo "exit code $?"
  "$NCU" --import /tmp/r50.ncu-rep --csv --page raw --metrics "$METRICS" | grep '^"' > "$out/resnet50_ncu_raw.csv"
  "$NCU" --import /tmp/r50.ncu-rep --csv --page details | grep '^"' | gzip -9n > "$out/resnet50_ncu_details.csv.gz"
  wc -l "$out"/resnet50_ncu_*.csv
  echo "=== detector build"
  "$here/examples/detector/build.sh" /tmp/detector-build > /tmp/detector-build.log 2>&1 || { echo BUILD FAILED; tail -20 /tmp/detector-build.log; }
  echo "=== detector ncu"
  timeout 300 "$NCU" --clock-control none --launch-skip 29 --launch-count 58 -f -o /tmp/det $SECTIONS --metrics "$METRICS" /tmp/detector-build/detector --batch 16 --no-check --warmup 0 --bench 3; echo "exit code $?"
  "$NCU" --import /tmp/det.ncu-rep --csv --page raw --metrics "$METRICS" | grep '^"' > "$out/detector_ncu_raw.csv"
  "$NCU" --import /tmp/det.ncu-rep --csv --page details | grep '^"' | gzip -9n > "$out/detector_ncu_details.csv.gz"
  wc -l "$out"/detector_ncu_*.csv
} > "$out/counters_log.txt" 2>&1
tail -5 "$out/counters_log.txt"
