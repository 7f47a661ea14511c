#!/bin/sh
# How the compiler outputs in this folder were made (run from the repository root, 2026-11-29):
#   nvcc 13.0.88 (/usr/local/bin/nvcc) and Debian's hipcc 5.2.3 (HIP 5.2.21153, clang 15, /usr/bin/hipcc).
# kernels.hip is kernels.cu translated by `hipgauge translate` (safe rewrites on).
set -e
D=tests/data/toolchain
T=$(mktemp -d)
python -m hipgauge translate $D/kernels.cu -o $T/hip --json > /dev/null
cp $T/hip/kernels.cu $D/kernels.hip
for a in sm_90 sm_80; do
  nvcc -std=c++17 -x cu -c -O3 -Xptxas -v -arch=$a $D/kernels.cu -o $T/k.$a.o > $D/nvcc_ptxas_$a.txt 2>&1
done
for a in gfx90a gfx940; do
  HIP_PLATFORM=amd hipcc -std=c++17 -x hip -c -O3 --offload-arch=$a -Rpass-analysis=kernel-resource-usage \
    -fno-color-diagnostics $D/kernels.hip -o $T/k.$a.o > $D/hipcc_remarks_$a.txt 2>&1
done
# compile error of the translated inline-PTX kernel under hipcc (the assembler rejects PTX)
python -m hipgauge translate tests/data/translate/asm_kernel.cu -o $T/asm --json > /dev/null
HIP_PLATFORM=amd hipcc -std=c++17 -x hip -c -O3 --offload-arch=gfx90a -fno-color-diagnostics -ferror-limit=0 \
  $T/asm/asm_kernel.cu -o $T/asm.o 2>&1 | sed "s|$T/asm/||" > $D/hipcc_errors_asm.txt || true
rm -rf $T
