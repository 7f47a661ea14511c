#include <cublasLt.h>
#include <cufft.h>
#include <curand.h>
#include <cusparse.h>
#include <cusolverDn.h>
#include <nvrtc.h>
#include <nvtx3/nvToolsExt.h>
#include <NvInfer.h>
#include <cutlass/gemm/device/gemm.h>
#include <thrust/sort.h>

void libs(cublasLtHandle_t lt, cufftHandle plan, curandGenerator_t gen, cusparseHandle_t sp, cusolverDnHandle_t so)
{
    cublasLtCreate(&lt);
    cufftPlan1d(&plan, 1024, CUFFT_C2C, 1);
    curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
    cusparseCreate(&sp);
    cusolverDnCreate(&so);
    nvrtcProgram prog;
    nvtxRangePushA("step");
    nvtxRangePop();
    nvinfer1::IBuilder* builder = nullptr;
    cutlass::gemm::device::Gemm<float, int, float, int, float, int> gemm_op;
    thrust::sort(thrust::device, nullptr, nullptr);
    my::cudaMalloc(nullptr);   // not the runtime's: qualified by another namespace
    obj.cudaFree(nullptr);     // a member, not the runtime's
}
