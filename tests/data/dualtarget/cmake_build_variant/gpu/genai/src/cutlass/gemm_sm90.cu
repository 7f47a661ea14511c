#include <cutlass/gemm/device/gemm_universal_adapter.h>
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<void>;
