// pipeline.cu — allocation, weights and one end-to-end iteration of the detector.
#include "pipeline.cuh"

#include <algorithm>
#include <cmath>
#include <random>

#include <nvtx3/nvToolsExt.h>

namespace det {

template <typename T>
static T* dalloc(size_t count)
{
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
    return p;
}

template <typename T>
static T* upload(const std::vector<T>& v)
{
    T* p = dalloc<T>(v.size());
    CUDA_CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

// He-normal convolutions; the dense head is scaled so that class logits have a standard deviation
// of a few units (peaked softmax, a few thousand anchors above the score threshold) and box deltas
// stay small (boxes near their anchors, so NMS has overlaps to remove).
Weights make_weights(unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.f, 1.f);
    Weights w;
    for (int l = 0; l < kNumConv; ++l) {
        const ConvSpec s = conv_spec(l);
        const float std_w = std::sqrt(2.0f / (s.in_c * 9));
        w.conv_w[l].resize((size_t)s.out_c * s.in_c * 9);
        for (float& v : w.conv_w[l]) v = std_w * normal(rng);
        w.conv_b[l].resize(s.out_c);
        for (float& v : w.conv_b[l]) v = 0.01f * normal(rng);
    }
    w.head_w.resize((size_t)kFeatC * kHeadOut);
    for (int k = 0; k < kFeatC; ++k)
        for (int j = 0; j < kHeadOut; ++j)
            w.head_w[(size_t)k * kHeadOut + j] = (j < kNumClasses ? kClsWeightStd : kBoxWeightStd) * normal(rng);
    w.cls_bias.resize(kNumClasses);
    for (float& v : w.cls_bias) v = 0.1f * normal(rng);
    w.box_bias.assign(4, 0.f);
    w.roi_w.resize((size_t)kRoiFeat * kRoiHidden);
    const float std_roi = 1.0f / std::sqrt((float)kRoiFeat);
    for (float& v : w.roi_w) v = std_roi * normal(rng);
    return w;
}

// Random images with some structure: smooth colour gradients plus noise, so that neighbouring
// pixels correlate as in photographs.
void fill_images(unsigned char* img, int batch, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-40, 40), base(0, 255);
    for (int b = 0; b < batch; ++b) {
        const int r0 = base(rng), g0 = base(rng), b0 = base(rng);
        for (int y = 0; y < kImageH; ++y)
            for (int x = 0; x < kImageW; ++x) {
                unsigned char* p = img + (((size_t)b * kImageH + y) * kImageW + x) * 3;
                const int v[3] = {r0 + x / 5, g0 + y / 5, b0 + (x + y) / 10};
                for (int c = 0; c < 3; ++c) p[c] = (unsigned char)std::clamp(v[c] % 256 + noise(rng), 0, 255);
            }
    }
}

void Detector::init(int b, const Weights& w)
{
    batch = b;
    const size_t rows = (size_t)batch * kAnchors;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUBLAS_CHECK(cublasCreate(&cublas));
    CUBLAS_CHECK(cublasSetStream(cublas, stream));
    CUDNN_CHECK(cudnnCreate(&cudnn));
    CUDNN_CHECK(cudnnSetStream(cudnn, stream));

    for (int l = 0; l < kNumConv; ++l) {
        conv_layer_init(cudnn, conv[l], conv_spec(l), batch);
        workspace_bytes = std::max(workspace_bytes, conv[l].workspace_bytes);
        d_conv_w[l] = upload(w.conv_w[l]);
        d_conv_b[l] = upload(w.conv_b[l]);
        const ConvSpec s = conv_spec(l);
        d_act[l] = dalloc<float>((size_t)batch * s.out_c * s.out_h() * s.out_w());
    }
    if (workspace_bytes) workspace = dalloc<char>(workspace_bytes);
    d_head_w = upload(w.head_w);
    d_cls_bias = upload(w.cls_bias);
    d_box_bias = upload(w.box_bias);
    d_roi_w = upload(w.roi_w);

    const size_t img_bytes = (size_t)batch * kImageH * kImageW * 3;
    CUDA_CHECK(cudaMallocHost(&h_img, img_bytes));
    d_img = dalloc<unsigned char>(img_bytes);
    d_norm = dalloc<float>((size_t)batch * 3 * kImageH * kImageW);
    d_feat_rows = dalloc<float>(rows * kFeatC);
    d_head = dalloc<float>(rows * kHeadOut);
    d_probs = dalloc<float>(rows * kNumClasses);
    d_best_score = dalloc<float>(rows);
    d_best_class = dalloc<int>(rows);
    d_boxes = dalloc<float4>(rows);
    d_cand_score = dalloc<float>(rows);
    d_cand_idx = dalloc<int>(rows);
    d_cand_count = dalloc<int>(batch);
    d_seg_begin = dalloc<int>(batch);
    d_seg_end = dalloc<int>(batch);
    d_sorted_score = dalloc<float>(rows);
    d_sorted_idx = dalloc<int>(rows);
    sort_temp_bytes = det::sort_temp_bytes(batch);
    sort_temp = dalloc<char>(sort_temp_bytes);
    d_nms_boxes = dalloc<float4>((size_t)batch * kMaxCand);
    d_nms_scores = dalloc<float>((size_t)batch * kMaxCand);
    d_nms_cls = dalloc<int>((size_t)batch * kMaxCand);
    d_nms_count = dalloc<int>(batch);
    d_mask = dalloc<unsigned long long>((size_t)batch * kMaxCand * kMaskWords);
    CUDA_CHECK(cudaMemset(d_mask, 0, (size_t)batch * kMaxCand * kMaskWords * sizeof(unsigned long long)));
    d_det_boxes = dalloc<float4>((size_t)batch * kMaxDet);
    d_det_scores = dalloc<float>((size_t)batch * kMaxDet);
    d_det_cls = dalloc<int>((size_t)batch * kMaxDet);
    d_det_count = dalloc<int>(batch);
    d_pooled = dalloc<float>((size_t)batch * kMaxDet * kRoiFeat);
    d_roi_out = dalloc<float>((size_t)batch * kMaxDet * kRoiHidden);
    CUDA_CHECK(cudaMallocHost(&h_det_boxes, (size_t)batch * kMaxDet * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost(&h_det_scores, (size_t)batch * kMaxDet * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_det_cls, (size_t)batch * kMaxDet * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_det_count, (size_t)batch * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
}

void Detector::run()
{
    const int rows = batch * kAnchors;
    nvtxRangePushA("preprocess");
    CUDA_CHECK(cudaMemcpyAsync(d_img, h_img, (size_t)batch * kImageH * kImageW * 3, cudaMemcpyHostToDevice, stream));
    launch_normalize(d_img, d_norm, batch, stream);
    nvtxRangePop();

    nvtxRangePushA("backbone");
    const float* x = d_norm;
    for (int l = 0; l < kNumConv; ++l) {
        const ConvSpec s = conv_spec(l);
        conv_layer_forward(cudnn, conv[l], x, d_conv_w[l], d_act[l], workspace, workspace_bytes);
        launch_bias_relu(d_act[l], d_conv_b[l], batch, s.out_c, s.out_h() * s.out_w(), stream);
        x = d_act[l];
    }
    nvtxRangePop();

    nvtxRangePushA("dense_head");
    launch_transpose(d_act[kNumConv - 1], d_feat_rows, batch, kFeatC, kAnchors, stream);
    dense_head_gemm(cublas, d_feat_rows, d_head_w, d_head, rows);
    launch_softmax(d_head, d_cls_bias, rows, d_probs, d_best_score, d_best_class, stream);
    launch_decode(d_head, d_box_bias, batch, d_boxes, stream);
    nvtxRangePop();

    nvtxRangePushA("select_nms");
    launch_compact(d_best_score, batch, d_cand_score, d_cand_idx, d_cand_count, d_seg_begin, d_seg_end, stream);
    launch_sort(sort_temp, sort_temp_bytes, d_cand_score, d_cand_idx, d_sorted_score, d_sorted_idx, d_seg_begin,
                d_seg_end, batch, stream);
    launch_gather(d_sorted_score, d_sorted_idx, d_cand_count, d_boxes, d_best_class, batch, d_nms_boxes,
                  d_nms_scores, d_nms_cls, d_nms_count, stream);
    launch_nms(d_nms_boxes, d_nms_cls, d_nms_scores, d_nms_count, batch, d_mask, d_det_boxes, d_det_scores,
               d_det_cls, d_det_count, stream);
    nvtxRangePop();

    nvtxRangePushA("roi_head");
    launch_roi_align(d_act[kNumConv - 1], d_det_boxes, batch, d_pooled, stream);
    roi_head_gemm(cublas, d_pooled, d_roi_w, d_roi_out, batch * kMaxDet);
    CUDA_CHECK(cudaMemcpyAsync(h_det_boxes, d_det_boxes, (size_t)batch * kMaxDet * sizeof(float4),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(h_det_scores, d_det_scores, (size_t)batch * kMaxDet * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(h_det_cls, d_det_cls, (size_t)batch * kMaxDet * sizeof(int), cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaMemcpyAsync(h_det_count, d_det_count, (size_t)batch * sizeof(int), cudaMemcpyDeviceToHost, stream));
    nvtxRangePop();
}

void Detector::destroy()
{
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int l = 0; l < kNumConv; ++l) {
        conv_layer_destroy(conv[l]);
        cudaFree(d_conv_w[l]);
        cudaFree(d_conv_b[l]);
        cudaFree(d_act[l]);
    }
    void* dev[] = {workspace, sort_temp, d_img, d_head_w, d_cls_bias, d_box_bias, d_roi_w, d_norm, d_feat_rows,
                   d_head, d_probs, d_best_score, d_best_class, d_boxes, d_cand_score, d_cand_idx, d_cand_count,
                   d_seg_begin, d_seg_end, d_sorted_score, d_sorted_idx, d_nms_boxes, d_nms_scores, d_nms_cls,
                   d_nms_count, d_mask, d_det_boxes, d_det_scores, d_det_cls, d_det_count, d_pooled, d_roi_out};
    for (void* p : dev) cudaFree(p);
    void* host[] = {h_img, h_det_boxes, h_det_scores, h_det_cls, h_det_count};
    for (void* p : host) cudaFreeHost(p);
    cublasDestroy(cublas);
    cudnnDestroy(cudnn);
    cudaStreamDestroy(stream);
}

}  // namespace det
