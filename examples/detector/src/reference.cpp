// reference.cpp — CPU references for the detector pipeline (see reference.h).
#include "reference.h"

#include <algorithm>
#include <cmath>

namespace ref {

static const float kMean[3] = {0.485f, 0.456f, 0.406f};
static const float kStd[3] = {0.229f, 0.224f, 0.225f};

float normalize_pixel(const uint8_t* img, int h, int w, int b, int y, int x, int c)
{
    const uint8_t v = img[(((size_t)b * h + y) * w + x) * 3 + c];
    return ((float)v / 255.0f - kMean[c]) / kStd[c];
}

double conv_point(const float* in, int in_c, int in_h, int in_w, const float* w, const float* bias, int b, int k,
                  int oy, int ox)
{
    double acc = bias[k];
    for (int c = 0; c < in_c; ++c) {
        const float* plane = in + ((size_t)b * in_c + c) * in_h * in_w;
        const float* wk = w + ((size_t)k * in_c + c) * 9;
        for (int ky = 0; ky < 3; ++ky) {
            const int iy = oy * 2 - 1 + ky;
            if (iy < 0 || iy >= in_h) continue;
            for (int kx = 0; kx < 3; ++kx) {
                const int ix = ox * 2 - 1 + kx;
                if (ix < 0 || ix >= in_w) continue;
                acc += (double)plane[(size_t)iy * in_w + ix] * wk[ky * 3 + kx];
            }
        }
    }
    return acc > 0 ? acc : 0;
}

int softmax_row(const float* logits, const float* bias, int num_classes, float* probs, float* best_prob)
{
    double m = -1e300;
    for (int c = 0; c < num_classes; ++c) m = std::max(m, (double)logits[c] + bias[c]);
    double s = 0;
    for (int c = 0; c < num_classes; ++c) s += std::exp((double)logits[c] + bias[c] - m);
    int best = 0;
    for (int c = 0; c < num_classes; ++c) {
        probs[c] = (float)(std::exp((double)logits[c] + bias[c] - m) / s);
        if (probs[c] > probs[best]) best = c;
    }
    *best_prob = probs[best];
    return best;
}

Box decode_box(const float* d, const float* bb, int cell, int feat_w, int stride, float anchor, float max_dwh,
               int img_w, int img_h)
{
    const double acx = ((cell % feat_w) + 0.5) * stride, acy = ((cell / feat_w) + 0.5) * stride;
    const double dx = d[0] + bb[0], dy = d[1] + bb[1];
    const double dw = std::min((double)(d[2] + bb[2]), (double)max_dwh);
    const double dh = std::min((double)(d[3] + bb[3]), (double)max_dwh);
    const double cx = acx + dx * anchor, cy = acy + dy * anchor;
    const double w = anchor * std::exp(dw), h = anchor * std::exp(dh);
    auto clip = [](double v, double hi) { return (float)std::min(std::max(v, 0.0), hi); };
    return {clip(cx - 0.5 * w, img_w), clip(cy - 0.5 * h, img_h), clip(cx + 0.5 * w, img_w), clip(cy + 0.5 * h, img_h)};
}

std::vector<int> compact(const float* scores, int n, float thresh)
{
    std::vector<int> out;
    for (int i = 0; i < n; ++i)
        if (scores[i] > thresh) out.push_back(i);
    return out;
}

std::vector<int> sort_desc(const std::vector<int>& idx, const float* scores)
{
    std::vector<int> out = idx;
    std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return scores[a] > scores[b]; });
    return out;
}

// Same float operations, in the same order, as box_iou in postprocess.cu.
float iou(const Box& a, const Box& b)
{
    const float left = std::max(a.x1, b.x1), right = std::min(a.x2, b.x2);
    const float top = std::max(a.y1, b.y1), bottom = std::min(a.y2, b.y2);
    const float w = std::max(right - left, 0.f), h = std::max(bottom - top, 0.f);
    const float inter = w * h;
    const float area_a = (a.x2 - a.x1) * (a.y2 - a.y1);
    const float area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
    const float uni = area_a + area_b - inter;
    return uni > 0.f ? inter / uni : 0.f;
}

std::vector<int> nms(const std::vector<Box>& boxes, const std::vector<int>& cls, float iou_thresh, int max_det)
{
    std::vector<int> keep;
    std::vector<char> removed(boxes.size(), 0);
    for (size_t i = 0; i < boxes.size() && (int)keep.size() < max_det; ++i) {
        if (removed[i]) continue;
        keep.push_back((int)i);
        for (size_t j = i + 1; j < boxes.size(); ++j)
            if (cls[j] == cls[i] && iou(boxes[i], boxes[j]) > iou_thresh) removed[j] = 1;
    }
    return keep;
}

static double bilinear(const float* f, int h, int w, double y, double x)
{
    if (y < -1.0 || y > h || x < -1.0 || x > w) return 0.0;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    int y0 = (int)y, x0 = (int)x, y1, x1;
    if (y0 >= h - 1) { y1 = y0 = h - 1; y = y0; } else { y1 = y0 + 1; }
    if (x0 >= w - 1) { x1 = x0 = w - 1; x = x0; } else { x1 = x0 + 1; }
    const double ly = y - y0, lx = x - x0, hy = 1 - ly, hx = 1 - lx;
    return hy * hx * f[y0 * w + x0] + hy * lx * f[y0 * w + x1] + ly * hx * f[y1 * w + x0] + ly * lx * f[y1 * w + x1];
}

float roi_align_point(const float* feat, int h, int w, const Box& roi, float scale, int c, int pool, int sampling,
                      int ph, int pw)
{
    const double x1 = roi.x1 * (double)scale - 0.5, y1 = roi.y1 * (double)scale - 0.5;
    const double x2 = roi.x2 * (double)scale - 0.5, y2 = roi.y2 * (double)scale - 0.5;
    const double bw = (x2 - x1) / pool, bh = (y2 - y1) / pool;
    const float* f = feat + (size_t)c * h * w;
    double acc = 0;
    for (int iy = 0; iy < sampling; ++iy)
        for (int ix = 0; ix < sampling; ++ix)
            acc += bilinear(f, h, w, y1 + ph * bh + (iy + 0.5) * bh / sampling, x1 + pw * bw + (ix + 0.5) * bw / sampling);
    return (float)(acc / (sampling * sampling));
}

void ErrorStats::add(double got, double want)
{
    const double d = got - want;
    sq_err += d * d;
    sq_ref += want * want;
    max_abs = std::max(max_abs, std::fabs(d));
    ++n;
}

double ErrorStats::rel() const { return sq_ref > 0 ? std::sqrt(sq_err / sq_ref) : std::sqrt(sq_err); }

}  // namespace ref
