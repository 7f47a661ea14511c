// detector.cuh — shared declarations of the detection pre/post-processing pipeline.
//
// Kernels and their launchers need only the CUDA runtime; the cuBLAS/cuDNN parts are declared in
// heads.cuh. Pipeline (one iteration, all on one stream):
//   uint8 HWC images --H2D--> normalize_image_kernel --> 3 x cuDNN conv (+ bias_relu_kernel)
//   --> transpose_tiled_kernel (NCHW -> per-anchor rows) --> cuBLAS SGEMM head (class logits + box deltas)
//   --> softmax_scores_kernel --> decode_boxes_kernel --> compact_scores_kernel (ballot)
//   --> CUB segmented sort by score --> gather_candidates_kernel --> nms_mask_kernel --> nms_reduce_kernel
//   --> roi_align_kernel --> cuBLAS GemmEx ROI head --D2H--> detections
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                      \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            fprintf(stderr, "CUDA error '%s' at %s:%d\n", cudaGetErrorString(err_), __FILE__,  \
                    __LINE__);                                                                \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

// Checked after every launch in debug builds; cheap enough to keep on.
#define KERNEL_CHECK() CUDA_CHECK(cudaGetLastError())

namespace det {

// ---- fixed model geometry -------------------------------------------------------------
constexpr int kImageH = 640;
constexpr int kImageW = 640;
constexpr int kStride = 8;                       // feature stride after three stride-2 convs
constexpr int kFeatH = kImageH / kStride;        // 80
constexpr int kFeatW = kImageW / kStride;        // 80
constexpr int kAnchors = kFeatH * kFeatW;        // 6400 anchors per image (one per cell)
constexpr int kFeatC = 64;                       // channels of the last feature map
constexpr int kNumClasses = 80;
constexpr int kHeadOut = kNumClasses + 4;        // class logits + (dx, dy, dw, dh)
constexpr int kMaxCand = 4096;                   // pre-NMS top-k per image
constexpr int kMaskWords = kMaxCand / 64;        // 64-bit words per NMS mask row
constexpr int kMaxDet = 300;                     // detections kept per image
constexpr int kPool = 7;                         // ROI align output is kPool x kPool
constexpr int kSampling = 2;                     // ROI align samples per bin side
constexpr int kRoiFeat = kFeatC * kPool * kPool; // 3136
constexpr int kRoiHidden = 256;                  // ROI head output width
constexpr float kAnchorSize = 32.f;
constexpr float kScoreThresh = 0.30f;
constexpr float kIouThresh = 0.50f;
constexpr float kClsWeightStd = 0.2f;            // dense head, class columns: 2-4k anchors per image pass kScoreThresh
constexpr float kBoxWeightStd = 0.02f;           // dense head, box-delta columns
constexpr float kMaxDeltaWH = 4.135166556742356f; // log(1000 / 16), as torchvision clamps

struct ConvSpec {
    int in_c, out_c, in_h, in_w;  // kernel 3x3, stride 2, pad 1
    int out_h() const { return (in_h + 2 - 3) / 2 + 1; }
    int out_w() const { return (in_w + 2 - 3) / 2 + 1; }
};
constexpr int kNumConv = 3;
inline ConvSpec conv_spec(int layer)
{
    static const ConvSpec specs[kNumConv] = {
        {3, 32, kImageH, kImageW}, {32, 64, kImageH / 2, kImageW / 2}, {64, kFeatC, kImageH / 4, kImageW / 4}};
    return specs[layer];
}

// ---- kernels' host-side launchers (one per .cu file section) ---------------------------
// preprocess.cu
void launch_normalize(const unsigned char* img_hwc, float* out_nchw, int batch, cudaStream_t s);
void launch_bias_relu(float* x, const float* bias, int batch, int c, int hw, cudaStream_t s);
void launch_transpose(const float* in_nchw, float* out_rows, int batch, int c, int hw, cudaStream_t s);

// postprocess.cu
void launch_softmax(const float* head, const float* cls_bias, int rows, float* probs, float* best_score,
                    int* best_class, cudaStream_t s);
void launch_decode(const float* head, const float* box_bias, int batch, float4* boxes, cudaStream_t s);
void launch_compact(const float* best_score, int batch, float* cand_score, int* cand_idx, int* cand_count,
                    int* seg_begin, int* seg_end, cudaStream_t s);
size_t sort_temp_bytes(int batch);
void launch_sort(void* temp, size_t temp_bytes, const float* cand_score, const int* cand_idx, float* sorted_score,
                 int* sorted_idx, const int* seg_begin, const int* seg_end, int batch, cudaStream_t s);
void launch_gather(const float* sorted_score, const int* sorted_idx, const int* cand_count, const float4* boxes,
                   const int* best_class, int batch, float4* nms_boxes, float* nms_scores, int* nms_cls,
                   int* nms_count, cudaStream_t s);
void launch_nms(const float4* nms_boxes, const int* nms_cls, const float* nms_scores, const int* nms_count,
                int batch, unsigned long long* mask, float4* det_boxes, float* det_scores, int* det_cls,
                int* det_count, cudaStream_t s);
void launch_roi_align(const float* feat_nchw, const float4* det_boxes, int batch, float* pooled, cudaStream_t s);

}  // namespace det
