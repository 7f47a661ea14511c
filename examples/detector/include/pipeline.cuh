// pipeline.cuh — the detector's buffers, handles and one end-to-end iteration.
#pragma once

#include <vector>

#include "heads.cuh"

namespace det {

struct Weights {  // host copies, kept for the CPU reference
    std::vector<float> conv_w[kNumConv], conv_b[kNumConv];
    std::vector<float> head_w, cls_bias, box_bias, roi_w;
};

struct Detector {
    int batch = 0;
    cudaStream_t stream{};
    cublasHandle_t cublas{};
    cudnnHandle_t cudnn{};
    ConvLayer conv[kNumConv];
    void* workspace = nullptr;
    size_t workspace_bytes = 0;
    void* sort_temp = nullptr;
    size_t sort_temp_bytes = 0;

    // inputs and weights
    unsigned char* h_img = nullptr;  // pinned, uint8 [B, H, W, 3]
    unsigned char* d_img = nullptr;
    float *d_conv_w[kNumConv] = {}, *d_conv_b[kNumConv] = {};
    float *d_head_w = nullptr, *d_cls_bias = nullptr, *d_box_bias = nullptr, *d_roi_w = nullptr;

    // activations
    float* d_norm = nullptr;                // [B, 3, H, W]
    float* d_act[kNumConv] = {};            // conv outputs (after bias + relu), NCHW
    float* d_feat_rows = nullptr;           // [B * anchors, kFeatC]
    float* d_head = nullptr;                // [B * anchors, kHeadOut]
    float *d_probs = nullptr, *d_best_score = nullptr;
    int* d_best_class = nullptr;
    float4* d_boxes = nullptr;              // [B * anchors]
    float* d_cand_score = nullptr;
    int *d_cand_idx = nullptr, *d_cand_count = nullptr, *d_seg_begin = nullptr, *d_seg_end = nullptr;
    float* d_sorted_score = nullptr;
    int* d_sorted_idx = nullptr;
    float4* d_nms_boxes = nullptr;          // [B, kMaxCand]
    float* d_nms_scores = nullptr;
    int *d_nms_cls = nullptr, *d_nms_count = nullptr;
    unsigned long long* d_mask = nullptr;   // [B, kMaxCand, kMaskWords]
    float4* d_det_boxes = nullptr;          // [B, kMaxDet]
    float* d_det_scores = nullptr;
    int *d_det_cls = nullptr, *d_det_count = nullptr;
    float* d_pooled = nullptr;              // [B * kMaxDet, kRoiFeat]
    float* d_roi_out = nullptr;             // [B * kMaxDet, kRoiHidden]

    // results (pinned)
    float4* h_det_boxes = nullptr;
    float* h_det_scores = nullptr;
    int *h_det_cls = nullptr, *h_det_count = nullptr;

    void init(int batch, const Weights& w);
    void run();  // one iteration on `stream`: H2D, every stage, D2H of the detections
    void destroy();
};

Weights make_weights(unsigned seed);
void fill_images(unsigned char* img, int batch, unsigned seed);

}  // namespace det
