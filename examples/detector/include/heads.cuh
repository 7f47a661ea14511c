// heads.cuh — the library-backed stages (cuDNN convolutions, cuBLAS GEMM heads).
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include "detector.cuh"

#define CUBLAS_CHECK(call)                                                                    \
    do {                                                                                      \
        cublasStatus_t st_ = (call);                                                          \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "cuBLAS error %d at %s:%d\n", (int)st_, __FILE__, __LINE__);     \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define CUDNN_CHECK(call)                                                                     \
    do {                                                                                      \
        cudnnStatus_t st_ = (call);                                                           \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                    \
            fprintf(stderr, "cuDNN error '%s' at %s:%d\n", cudnnGetErrorString(st_), __FILE__, \
                    __LINE__);                                                                \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

namespace det {

// heads.cu
struct ConvLayer {
    ConvSpec spec{};
    cudnnTensorDescriptor_t x_desc{}, y_desc{};
    cudnnFilterDescriptor_t w_desc{};
    cudnnConvolutionDescriptor_t conv_desc{};
    cudnnConvolutionFwdAlgo_t algo{};
    size_t workspace_bytes = 0;
};
void conv_layer_init(cudnnHandle_t h, ConvLayer& layer, const ConvSpec& spec, int batch);
void conv_layer_forward(cudnnHandle_t h, const ConvLayer& layer, const float* x, const float* w, float* y,
                        void* workspace, size_t workspace_bytes);
void conv_layer_destroy(ConvLayer& layer);
void dense_head_gemm(cublasHandle_t h, const float* feat_rows, const float* w_head, float* head_out, int rows);
void roi_head_gemm(cublasHandle_t h, const float* pooled, const float* w_roi, float* roi_out, int rois);

}  // namespace det
