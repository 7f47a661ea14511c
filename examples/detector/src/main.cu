// main.cu — runs the detector on random (fixed-seed) images, checks every stage against a CPU
// reference, and with --bench N times N end-to-end iterations with CUDA events.
//
//   detector [--batch B (16)] [--seed S] [--no-check] [--bench N] [--warmup W] [--csv PATH]
//
// Output: one "PASS|FAIL <stage> ..." line per stage; exit 1 if any stage fails.
// --bench writes PATH (default detector_latency_ms.csv) with the header `iteration,latency_ms`.
#include <algorithm>
#include <cstdarg>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipeline.cuh"
#include "reference.h"

using namespace det;

template <typename T>
static std::vector<T> download(const T* d, size_t count)
{
    std::vector<T> h(count);
    CUDA_CHECK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

static ref::Box to_box(const float4& b) { return {b.x, b.y, b.z, b.w}; }

static bool report(const char* stage, bool ok, const char* fmt, ...)
{
    printf("%s %-14s ", ok ? "PASS" : "FAIL", stage);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return ok;
}

static bool check_numeric(const char* stage, const ref::ErrorStats& e, double rel_tol)
{
    const bool ok = e.rel() <= rel_tol && std::isfinite(e.rel());
    return report(stage, ok, "rel_err=%.3g max_abs_err=%.3g samples=%lld (tol %.0e)", e.rel(), e.max_abs, e.n, rel_tol);
}

// Check every stage on the GPU's own input to that stage.
static bool check_all(const Detector& d, const Weights& w)
{
    const int B = d.batch;
    const int rows = B * kAnchors;
    std::mt19937 rng(7);
    bool all = true;

    // 1. normalisation (every value)
    {
        auto got = download(d.d_norm, (size_t)B * 3 * kImageH * kImageW);
        ref::ErrorStats e;
        for (int b = 0; b < B; ++b)
            for (int c = 0; c < 3; ++c)
                for (int y = 0; y < kImageH; ++y)
                    for (int x = 0; x < kImageW; ++x)
                        e.add(got[(((size_t)b * 3 + c) * kImageH + y) * kImageW + x],
                              ref::normalize_pixel(d.h_img, kImageH, kImageW, b, y, x, c));
        all &= check_numeric("normalize", e, 1e-6);
    }

    // 2. convolutions + bias + relu (sampled outputs; cuDNN may use TF32 tensor cores)
    std::vector<float> act_last;
    {
        std::vector<float> in = download(d.d_norm, (size_t)B * 3 * kImageH * kImageW);
        for (int l = 0; l < kNumConv; ++l) {
            const ConvSpec s = conv_spec(l);
            std::vector<float> out = download(d.d_act[l], (size_t)B * s.out_c * s.out_h() * s.out_w());
            ref::ErrorStats e;
            for (int t = 0; t < 4096; ++t) {
                const int b = rng() % B, k = rng() % s.out_c, oy = rng() % s.out_h(), ox = rng() % s.out_w();
                const double want = ref::conv_point(in.data(), s.in_c, s.in_h, s.in_w, w.conv_w[l].data(),
                                                    w.conv_b[l].data(), b, k, oy, ox);
                e.add(out[(((size_t)b * s.out_c + k) * s.out_h() + oy) * s.out_w() + ox], want);
            }
            char name[32];
            snprintf(name, sizeof name, "conv%d", l + 1);
            all &= check_numeric(name, e, 5e-3);
            in.swap(out);
        }
        act_last.swap(in);
    }

    // 3. tiled transpose (every value, exact)
    std::vector<float> feat_rows = download(d.d_feat_rows, (size_t)rows * kFeatC);
    {
        long long bad = 0;
        for (int b = 0; b < B; ++b)
            for (int c = 0; c < kFeatC; ++c)
                for (int p = 0; p < kAnchors; ++p)
                    bad += feat_rows[((size_t)b * kAnchors + p) * kFeatC + c] !=
                           act_last[((size_t)b * kFeatC + c) * kAnchors + p];
        all &= report("transpose", bad == 0, "mismatches=%lld of %lld", bad, (long long)rows * kFeatC);
    }

    // 4. dense head GEMM (sampled rows, every column)
    std::vector<float> head = download(d.d_head, (size_t)rows * kHeadOut);
    {
        ref::ErrorStats e;
        for (int t = 0; t < 1024; ++t) {
            const int r = rng() % rows;
            for (int j = 0; j < kHeadOut; ++j) {
                double acc = 0;
                for (int k = 0; k < kFeatC; ++k) acc += (double)feat_rows[(size_t)r * kFeatC + k] * w.head_w[(size_t)k * kHeadOut + j];
                e.add(head[(size_t)r * kHeadOut + j], acc);
            }
        }
        all &= check_numeric("dense_gemm", e, 1e-4);
    }

    // 5. softmax (every row)
    std::vector<float> best_score = download(d.d_best_score, rows);
    std::vector<int> best_class = download(d.d_best_class, rows);
    {
        std::vector<float> probs = download(d.d_probs, (size_t)rows * kNumClasses);
        std::vector<float> p(kNumClasses);
        ref::ErrorStats e;
        long long cls_bad = 0;
        for (int r = 0; r < rows; ++r) {
            float bp;
            const int bc = ref::softmax_row(&head[(size_t)r * kHeadOut], w.cls_bias.data(), kNumClasses, p.data(), &bp);
            for (int c = 0; c < kNumClasses; ++c) e.add(probs[(size_t)r * kNumClasses + c], p[c]);
            e.add(best_score[r], bp);
            // a different arg-max is only acceptable for a near tie
            if (best_class[r] != bc && std::fabs(p[best_class[r]] - bp) > 1e-5f) ++cls_bad;
        }
        all &= report("softmax", e.max_abs < 1e-5 && cls_bad == 0, "max_abs_err=%.3g class_mismatches=%lld rows=%d",
                      e.max_abs, cls_bad, rows);
    }

    // 6. box decoding (every anchor)
    std::vector<float4> boxes = download(d.d_boxes, rows);
    {
        ref::ErrorStats e;
        for (int r = 0; r < rows; ++r) {
            const ref::Box want = ref::decode_box(&head[(size_t)r * kHeadOut + kNumClasses], w.box_bias.data(),
                                                  r % kAnchors, kFeatW, kStride, kAnchorSize, kMaxDeltaWH, kImageW, kImageH);
            e.add(boxes[r].x, want.x1); e.add(boxes[r].y, want.y1); e.add(boxes[r].z, want.x2); e.add(boxes[r].w, want.y2);
        }
        all &= report("decode", e.max_abs < 1e-3, "max_abs_err=%.3g px boxes=%d", e.max_abs, rows);
    }

    // 7. ballot compaction, 8. segmented sort, 9. gather (exact, per image)
    std::vector<int> cand_count = download(d.d_cand_count, B);
    std::vector<int> cand_idx = download(d.d_cand_idx, rows);
    std::vector<int> sorted_idx = download(d.d_sorted_idx, rows);
    std::vector<int> nms_count = download(d.d_nms_count, B);
    std::vector<float4> nms_boxes = download(d.d_nms_boxes, (size_t)B * kMaxCand);
    std::vector<int> nms_cls = download(d.d_nms_cls, (size_t)B * kMaxCand);
    {
        bool ok_c = true, ok_s = true, ok_g = true;
        long long total = 0;
        for (int b = 0; b < B; ++b) {
            const float* sc = &best_score[(size_t)b * kAnchors];
            const std::vector<int> want = ref::compact(sc, kAnchors, kScoreThresh);
            total += want.size();
            ok_c &= cand_count[b] == (int)want.size() &&
                    std::equal(want.begin(), want.end(), cand_idx.begin() + (size_t)b * kAnchors);
            const std::vector<int> want_sorted = ref::sort_desc(want, sc);
            ok_s &= std::equal(want_sorted.begin(), want_sorted.end(), sorted_idx.begin() + (size_t)b * kAnchors);
            const int n = std::min((int)want.size(), kMaxCand);
            ok_g &= nms_count[b] == n;
            for (int k = 0; k < n && ok_g; ++k) {
                const int a = want_sorted[k];
                const float4 g = nms_boxes[(size_t)b * kMaxCand + k], r = boxes[(size_t)b * kAnchors + a];
                ok_g &= g.x == r.x && g.y == r.y && g.z == r.z && g.w == r.w &&
                        nms_cls[(size_t)b * kMaxCand + k] == best_class[(size_t)b * kAnchors + a];
            }
        }
        all &= report("compact", ok_c, "candidates=%lld (%.1f per image, score > %.2f)", total, (double)total / B, kScoreThresh);
        all &= report("sort", ok_s, "segments=%d", B);
        all &= report("gather", ok_g, "top-%d per image", kMaxCand);
    }

    // 10. NMS (exact: same kept boxes, same order)
    std::vector<int> det_count = download(d.d_det_count, B);
    std::vector<float4> det_boxes = download(d.d_det_boxes, (size_t)B * kMaxDet);
    {
        bool ok = true;
        long long kept = 0, cand = 0;
        for (int b = 0; b < B; ++b) {
            std::vector<ref::Box> bx(nms_count[b]);
            std::vector<int> cl(nms_count[b]);
            for (int k = 0; k < nms_count[b]; ++k) {
                bx[k] = to_box(nms_boxes[(size_t)b * kMaxCand + k]);
                cl[k] = nms_cls[(size_t)b * kMaxCand + k];
            }
            const std::vector<int> keep = ref::nms(bx, cl, kIouThresh, kMaxDet);
            kept += keep.size();
            cand += nms_count[b];
            ok &= det_count[b] == (int)keep.size();
            for (size_t j = 0; j < keep.size() && ok; ++j) {
                const float4 g = det_boxes[(size_t)b * kMaxDet + j];
                const ref::Box& r = bx[keep[j]];
                ok &= g.x == r.x1 && g.y == r.y1 && g.z == r.x2 && g.w == r.y2;
            }
        }
        all &= report("nms", ok, "kept=%lld of %lld candidates (IoU > %.2f, at most %d per image)", kept, cand,
                      kIouThresh, kMaxDet);
    }

    // 11. ROI align (sampled), 12. ROI head GEMM (sampled rows)
    std::vector<float> pooled = download(d.d_pooled, (size_t)B * kMaxDet * kRoiFeat);
    {
        ref::ErrorStats e;
        for (int t = 0; t < 8192; ++t) {
            const int r = rng() % (B * kMaxDet), c = rng() % kFeatC, ph = rng() % kPool, pw = rng() % kPool;
            const int b = r / kMaxDet;
            const float want = ref::roi_align_point(&act_last[(size_t)b * kFeatC * kAnchors], kFeatH, kFeatW,
                                                    to_box(det_boxes[r]), 1.0f / kStride, c, kPool, kSampling, ph, pw);
            e.add(pooled[(size_t)r * kRoiFeat + (c * kPool + ph) * kPool + pw], want);
        }
        all &= check_numeric("roi_align", e, 1e-4);
    }
    {
        std::vector<float> out = download(d.d_roi_out, (size_t)B * kMaxDet * kRoiHidden);
        ref::ErrorStats e;
        for (int t = 0; t < 64; ++t) {
            const int r = rng() % (B * kMaxDet);
            for (int j = 0; j < kRoiHidden; ++j) {
                double acc = 0;
                for (int k = 0; k < kRoiFeat; ++k) acc += (double)pooled[(size_t)r * kRoiFeat + k] * w.roi_w[(size_t)k * kRoiHidden + j];
                e.add(out[(size_t)r * kRoiHidden + j], acc);
            }
        }
        all &= check_numeric("roi_gemm", e, 5e-3);
    }

    // 13. detections copied back to the host match the device
    {
        bool ok = true;
        for (int b = 0; b < B; ++b) ok &= d.h_det_count[b] == det_count[b];
        for (int i = 0; i < B * kMaxDet && ok; ++i) ok &= d.h_det_boxes[i].x == det_boxes[i].x && d.h_det_boxes[i].w == det_boxes[i].w;
        all &= report("download", ok, "detections per image: %d .. %d", *std::min_element(det_count.begin(), det_count.end()),
                      *std::max_element(det_count.begin(), det_count.end()));
    }
    return all;
}

static double percentile(std::vector<float> v, double p)
{
    std::sort(v.begin(), v.end());
    const double pos = p / 100.0 * (v.size() - 1);
    const size_t lo = (size_t)pos, hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

int main(int argc, char** argv)
{
    int batch = 16, bench = 0, warmup = 20;
    unsigned seed = 1234;
    bool check = true;
    std::string csv = "detector_latency_ms.csv";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* {
            if (i + 1 >= argc) { fprintf(stderr, "%s needs a value\n", a.c_str()); exit(2); }
            return argv[++i];
        };
        if (a == "--batch") batch = atoi(next());
        else if (a == "--bench") bench = atoi(next());
        else if (a == "--warmup") warmup = atoi(next());
        else if (a == "--seed") seed = (unsigned)atoi(next());
        else if (a == "--csv") csv = next();
        else if (a == "--no-check") check = false;
        else { fprintf(stderr, "usage: %s [--batch B] [--seed S] [--no-check] [--bench N] [--warmup W] [--csv PATH]\n", argv[0]); return 2; }
    }
    if (batch < 1 || bench < 0 || warmup < 0) { fprintf(stderr, "bad arguments\n"); return 2; }

    int dev = 0;
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    printf("device: %s (sm_%d%d, %d SMs); batch %d x %dx%d, %d anchors/image, %d classes\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, batch, kImageH, kImageW, kAnchors, kNumClasses);

    const Weights w = make_weights(seed);
    Detector d;
    d.init(batch, w);
    fill_images(d.h_img, batch, seed + 1);
    for (int l = 0; l < kNumConv; ++l) printf("conv%d: cuDNN algo %d, workspace %zu bytes\n", l + 1, (int)d.conv[l].algo, d.conv[l].workspace_bytes);

    d.run();
    CUDA_CHECK(cudaStreamSynchronize(d.stream));
    bool ok = true;
    if (check) {
        ok = check_all(d, w);
        printf("%s all stages\n", ok ? "PASS" : "FAIL");
    }

    if (bench > 0) {
        cudaEvent_t start, stop;
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < warmup; ++i) d.run();
        CUDA_CHECK(cudaStreamSynchronize(d.stream));
        std::vector<float> ms(bench);
        for (int i = 0; i < bench; ++i) {
            CUDA_CHECK(cudaEventRecord(start, d.stream));
            d.run();
            CUDA_CHECK(cudaEventRecord(stop, d.stream));
            CUDA_CHECK(cudaEventSynchronize(stop));
            CUDA_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
        }
        FILE* f = fopen(csv.c_str(), "w");
        if (!f) { fprintf(stderr, "cannot write %s\n", csv.c_str()); return 2; }
        fprintf(f, "iteration,latency_ms\n");
        for (int i = 0; i < bench; ++i) fprintf(f, "%d,%.4f\n", i, ms[i]);
        fclose(f);
        double mean = 0;
        for (float v : ms) mean += v;
        mean /= bench;
        printf("bench: %d iterations after %d warm-up: mean %.3f ms, P50 %.3f ms, P90 %.3f ms, P99 %.3f ms, max %.3f ms -> %s\n",
               bench, warmup, mean, percentile(ms, 50), percentile(ms, 90), percentile(ms, 99),
               *std::max_element(ms.begin(), ms.end()), csv.c_str());
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    d.destroy();
    return ok ? 0 : 1;
}
