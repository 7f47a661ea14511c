// reference.h — simple CPU references for every stage of the pipeline (plain C++, no CUDA).
// Each takes the GPU's own input to that stage, so a mismatch points at exactly one stage.
#pragma once

#include <cstdint>
#include <vector>

namespace ref {

struct Box { float x1, y1, x2, y2; };

// normalised value of channel c of pixel (b, y, x); img is uint8 [B, H, W, 3]
float normalize_pixel(const uint8_t* img, int h, int w, int b, int y, int x, int c);

// relu(conv3x3_s2_p1(in)[b, k, oy, ox] + bias[k]) in double; in is NCHW [B, in_c, in_h, in_w],
// w is [out_c, in_c, 3, 3]
double conv_point(const float* in, int in_c, int in_h, int in_w, const float* w, const float* bias, int b, int k,
                  int oy, int ox);

// softmax of (logits[c] + bias[c]) over num_classes; returns best class, writes probs and best prob
int softmax_row(const float* logits, const float* bias, int num_classes, float* probs, float* best_prob);

// decoded box of one anchor row of the head output (deltas at head_row[num_classes..+4])
Box decode_box(const float* deltas, const float* box_bias, int cell, int feat_w, int stride, float anchor,
               float max_dwh, int img_w, int img_h);

// indices (in anchor order) of scores > thresh
std::vector<int> compact(const float* scores, int n, float thresh);
// the same indices, stably sorted by descending score
std::vector<int> sort_desc(const std::vector<int>& idx, const float* scores);

float iou(const Box& a, const Box& b);
// greedy class-aware NMS over boxes already in score order; returns kept positions (at most max_det)
std::vector<int> nms(const std::vector<Box>& boxes, const std::vector<int>& cls, float iou_thresh, int max_det);

// one ROI-align output value (aligned=True, fixed sampling); feat is one image's [C, H, W]
float roi_align_point(const float* feat, int h, int w, const Box& roi, float spatial_scale, int c, int pool,
                      int sampling, int ph, int pw);

// ||a - b|| / ||b|| over paired samples, and the largest |a - b|
struct ErrorStats {
    double sq_err = 0, sq_ref = 0, max_abs = 0;
    long long n = 0;
    void add(double got, double want);
    double rel() const;
};

}  // namespace ref
