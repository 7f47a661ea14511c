#!/usr/bin/env bash
# build.sh [OUT_DIR] — build the detector with nvcc alone (no CMake), finding cuBLAS and cuDNN in
# the CUDA toolkit, the system, or the nvidia-* Python wheels (pip's nvidia/cu13, nvidia/cudnn).
#   ARCH=90 ./build.sh build        (ARCH: one compute capability, default 90 = H100/H200)
#   NVLIBS=/tmp/nvlibs ./build.sh   (extra root holding nvidia/*/include and nvidia/*/lib)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/build}
arch=${ARCH:-90}
mkdir -p "$out"

cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")}
roots="$cuda_home /usr/local/cuda /usr"
wheel_dirs=""
for p in ${NVLIBS:+$NVLIBS/nvidia} $(python3 -c 'import nvidia; print(" ".join(nvidia.__path__))' 2>/dev/null || true); do
  wheel_dirs="$wheel_dirs $p/cu13 $p/cublas $p/cudnn"
done

first() {  # first existing path among the arguments
  for f in "$@"; do [ -e "$f" ] && { echo "$f"; return 0; }; done
  return 1
}
find_header() {
  local c=()
  for r in $roots $wheel_dirs; do c+=("$r/include/$1"); done
  dirname "$(first "${c[@]}")"
}
find_lib() {  # $1 base name, $2 soversion, $3 root to try first (where the header was found)
  local c=()
  for r in ${3:-} $roots $wheel_dirs; do
    for l in lib64 lib lib/x86_64-linux-gnu targets/x86_64-linux/lib; do c+=("$r/$l/$1.so" "$r/$l/$1.so.$2"); done
  done
  first "${c[@]}"
}

cublas_inc=$(find_header cublas_v2.h) || { echo "cublas_v2.h not found" >&2; exit 1; }
cudnn_inc=$(find_header cudnn.h) || { echo "cudnn.h not found" >&2; exit 1; }
cublas_lib=$(find_lib libcublas 13 "$(dirname "$cublas_inc")") || { echo "libcublas not found" >&2; exit 1; }
cublaslt_lib=$(find_lib libcublasLt 13 "$(dirname "$cublas_inc")") || { echo "libcublasLt not found" >&2; exit 1; }
cudnn_lib=$(find_lib libcudnn 9 "$(dirname "$cudnn_inc")") || { echo "libcudnn not found" >&2; exit 1; }
echo "cuBLAS: $cublas_inc, $cublas_lib"
echo "cuDNN:  $cudnn_inc, $cudnn_lib"

flags=(-std=c++17 -O3 -lineinfo "-gencode=arch=compute_${arch},code=sm_${arch}" -I"$here/include" -I"$cublas_inc" -I"$cudnn_inc")
pids=()
for f in main pipeline preprocess postprocess heads; do
  nvcc "${flags[@]}" -Xptxas -v -c "$here/src/$f.cu" -o "$out/$f.o" 2> "$out/$f.ptxas.txt" &
  pids+=($!)
done
nvcc -std=c++17 -O3 -I"$here/include" -c "$here/src/reference.cpp" -o "$out/reference.o"
for p in "${pids[@]}"; do wait "$p" || { cat "$out"/*.ptxas.txt >&2; exit 1; }; done
rpath="$(dirname "$cublas_lib"):$(dirname "$cudnn_lib")"
nvcc "-gencode=arch=compute_${arch},code=sm_${arch}" "$out"/*.o -o "$out/detector" \
  -L"$(dirname "$cublas_lib")" -L"$(dirname "$cublaslt_lib")" -L"$(dirname "$cudnn_lib")" \
  -l:"$(basename "$cublas_lib")" -l:"$(basename "$cublaslt_lib")" -l:"$(basename "$cudnn_lib")" -Xlinker "-rpath=$rpath"
echo "built $out/detector"
