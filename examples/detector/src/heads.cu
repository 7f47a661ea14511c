// heads.cu — the library-backed parts of the model: the cuDNN convolution backbone stand-in and
// the two cuBLAS GEMM heads. On ROCm these land on MIOpen and hipBLAS/rocBLAS.
#include "heads.cuh"

namespace det {

// One 3x3, stride-2, pad-1 convolution (NCHW, fp32) through the cuDNN legacy API.
void conv_layer_init(cudnnHandle_t h, ConvLayer& L, const ConvSpec& spec, int batch)
{
    L.spec = spec;
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&L.x_desc));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&L.y_desc));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&L.w_desc));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&L.conv_desc));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(L.x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch, spec.in_c,
                                           spec.in_h, spec.in_w));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(L.w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, spec.out_c, spec.in_c, 3, 3));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(L.conv_desc, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    int n, c, oh, ow;
    CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(L.conv_desc, L.x_desc, L.w_desc, &n, &c, &oh, &ow));
    if (n != batch || c != spec.out_c || oh != spec.out_h() || ow != spec.out_w()) {
        fprintf(stderr, "cuDNN output shape %dx%dx%dx%d does not match the model\n", n, c, oh, ow);
        exit(1);
    }
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(L.y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, oh, ow));

    // Heuristic algorithm choice (no benchmarking at start-up): the first that succeeds.
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, L.x_desc, L.w_desc, L.conv_desc, L.y_desc,
                                                       CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
    L.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    for (int i = 0; i < returned; ++i) {
        if (perf[i].status == CUDNN_STATUS_SUCCESS) {
            L.algo = perf[i].algo;
            break;
        }
    }
    CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(h, L.x_desc, L.w_desc, L.conv_desc, L.y_desc, L.algo,
                                                        &L.workspace_bytes));
}

void conv_layer_forward(cudnnHandle_t h, const ConvLayer& L, const float* x, const float* w, float* y,
                        void* workspace, size_t workspace_bytes)
{
    const float alpha = 1.0f, beta = 0.0f;
    CUDNN_CHECK(cudnnConvolutionForward(h, &alpha, L.x_desc, x, L.w_desc, w, L.conv_desc, L.algo, workspace,
                                        workspace_bytes, &beta, L.y_desc, y));
}

void conv_layer_destroy(ConvLayer& L)
{
    cudnnDestroyTensorDescriptor(L.x_desc);
    cudnnDestroyTensorDescriptor(L.y_desc);
    cudnnDestroyFilterDescriptor(L.w_desc);
    cudnnDestroyConvolutionDescriptor(L.conv_desc);
}

// Dense head: head_out[rows, kHeadOut] = feat_rows[rows, kFeatC] x w_head[kFeatC, kHeadOut], all
// row-major. cuBLAS is column-major, so compute head_out^T = w_head^T x feat_rows^T.
void dense_head_gemm(cublasHandle_t h, const float* feat_rows, const float* w_head, float* head_out, int rows)
{
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kHeadOut, rows, kFeatC, &alpha, w_head, kHeadOut,
                             feat_rows, kFeatC, &beta, head_out, kHeadOut));
}

// ROI head: roi_out[rois, kRoiHidden] = pooled[rois, kRoiFeat] x w_roi[kRoiFeat, kRoiHidden], through
// the mixed-precision entry point (fp32 in/out, fp32 compute).
void roi_head_gemm(cublasHandle_t h, const float* pooled, const float* w_roi, float* roi_out, int rois)
{
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, kRoiHidden, rois, kRoiFeat, &alpha, w_roi, CUDA_R_32F,
                              kRoiHidden, pooled, CUDA_R_32F, kRoiFeat, &beta, roi_out, CUDA_R_32F, kRoiHidden,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace det
