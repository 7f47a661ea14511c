// postprocess.cu — class scores, box decoding, candidate selection, NMS and ROI align.
//
// Several kernels here are written the way NVIDIA-tuned serving code often is: one warp per row,
// 32-bit full masks (0xffffffff), lane/warp indices from `& 31` and `>> 5`, ballot results held in
// a 32-bit unsigned int. They are correct on every NVIDIA GPU; on a 64-wide AMD wavefront each of
// them needs attention. That is what hipgauge is meant to find.
#include <cfloat>
#include <cub/cub.cuh>

#include "detector.cuh"

namespace det {

// ---------------------------------------------------------------------------------------------
// Softmax over class logits: one warp per anchor row, warp-shuffle reductions.
// head: [rows, kHeadOut] (class logits in columns 0..kNumClasses-1). Writes probs [rows, C] and the
// best class and its probability per row (ties go to the lower class id).
// ---------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(256)
softmax_scores_kernel(const float* __restrict__ head, const float* __restrict__ cls_bias, int rows,
                      float* __restrict__ probs, float* __restrict__ best_score, int* __restrict__ best_class)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int row = blockIdx.x * (blockDim.x >> 5) + warp;
    if (row >= rows) return;  // uniform per warp
    const float* x = head + (size_t)row * kHeadOut;

    float m = -FLT_MAX;
    for (int c = lane; c < kNumClasses; c += 32) m = fmaxf(m, x[c] + cls_bias[c]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));

    float s = 0.f;
    for (int c = lane; c < kNumClasses; c += 32) s += __expf(x[c] + cls_bias[c] - m);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
    const float inv = 1.0f / s;

    float bp = -1.f;
    int bc = 0;
    for (int c = lane; c < kNumClasses; c += 32) {
        const float p = __expf(x[c] + cls_bias[c] - m) * inv;
        probs[(size_t)row * kNumClasses + c] = p;
        if (p > bp) { bp = p; bc = c; }
    }
    for (int off = 16; off > 0; off >>= 1) {
        const float op = __shfl_xor_sync(0xffffffff, bp, off);
        const int oc = __shfl_xor_sync(0xffffffff, bc, off);
        if (op > bp || (op == bp && oc < bc)) { bp = op; bc = oc; }
    }
    if (lane == 0) {
        best_score[row] = bp;
        best_class[row] = bc;
    }
}

// ---------------------------------------------------------------------------------------------
// Box decoding against one square anchor per feature cell (torchvision BoxCoder, weights 1).
// Element-wise; no warp assumption.
// ---------------------------------------------------------------------------------------------
__global__ void decode_boxes_kernel(const float* __restrict__ head, const float* __restrict__ box_bias, int rows,
                                    float4* __restrict__ boxes)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    const int cell = i % kAnchors;
    const float acx = ((cell % kFeatW) + 0.5f) * kStride;
    const float acy = ((cell / kFeatW) + 0.5f) * kStride;
    const float* d = head + (size_t)i * kHeadOut + kNumClasses;
    const float dx = d[0] + box_bias[0], dy = d[1] + box_bias[1];
    const float dw = fminf(d[2] + box_bias[2], kMaxDeltaWH), dh = fminf(d[3] + box_bias[3], kMaxDeltaWH);
    const float cx = acx + dx * kAnchorSize, cy = acy + dy * kAnchorSize;
    const float w = kAnchorSize * expf(dw), h = kAnchorSize * expf(dh);
    float4 b;
    b.x = fminf(fmaxf(cx - 0.5f * w, 0.f), (float)kImageW);
    b.y = fminf(fmaxf(cy - 0.5f * h, 0.f), (float)kImageH);
    b.z = fminf(fmaxf(cx + 0.5f * w, 0.f), (float)kImageW);
    b.w = fminf(fmaxf(cy + 0.5f * h, 0.f), (float)kImageH);
    boxes[i] = b;
}

// ---------------------------------------------------------------------------------------------
// Ballot-based, order-preserving score compaction: one block per image walks its anchors in
// chunks of blockDim.x; each warp ballots its survivors into a 32-bit mask, a warp-level scan
// of the per-warp counts gives each warp its offset, and each survivor's slot is the popcount
// of the mask bits below its lane.
// ---------------------------------------------------------------------------------------------
__global__ void compact_scores_kernel(const float* __restrict__ best_score, float thresh,
                                      float* __restrict__ cand_score, int* __restrict__ cand_idx,
                                      int* __restrict__ cand_count, int* __restrict__ seg_begin,
                                      int* __restrict__ seg_end)
{
    __shared__ int warp_counts[32];
    __shared__ int base;
    const int img = blockIdx.x;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    const float* s_in = best_score + (size_t)img * kAnchors;
    if (threadIdx.x == 0) base = 0;
    __syncthreads();

    for (int start = 0; start < kAnchors; start += blockDim.x) {
        const int i = start + threadIdx.x;
        const float s = i < kAnchors ? s_in[i] : 0.f;
        const bool pred = (i < kAnchors) && (s > thresh);
        unsigned int m = __ballot_sync(0xffffffff, pred);
        if (lane == 0) warp_counts[warp] = __popc(m);
        __syncthreads();
        if (warp == 0) {
            int c = lane < nwarps ? warp_counts[lane] : 0;
            for (int off = 1; off < 32; off <<= 1) {
                const int t = __shfl_up_sync(0xffffffff, c, off);
                if (lane >= off) c += t;
            }
            if (lane < nwarps) warp_counts[lane] = c;  // inclusive scan
        }
        __syncthreads();
        const int warp_off = warp > 0 ? warp_counts[warp - 1] : 0;
        if (pred) {
            const int pos = base + warp_off + __popc(m & ((1u << lane) - 1));
            cand_score[(size_t)img * kAnchors + pos] = s;
            cand_idx[(size_t)img * kAnchors + pos] = i;
        }
        __syncthreads();
        if (threadIdx.x == 0) base += warp_counts[nwarps - 1];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        cand_count[img] = base;
        seg_begin[img] = img * kAnchors;
        seg_end[img] = img * kAnchors + base;
    }
}

// ---------------------------------------------------------------------------------------------
// Gather the top kMaxCand candidates of each image (already sorted by score) into NMS input.
// ---------------------------------------------------------------------------------------------
__global__ void gather_candidates_kernel(const float* __restrict__ sorted_score, const int* __restrict__ sorted_idx,
                                         const int* __restrict__ cand_count, const float4* __restrict__ boxes,
                                         const int* __restrict__ best_class, float4* __restrict__ nms_boxes,
                                         float* __restrict__ nms_scores, int* __restrict__ nms_cls,
                                         int* __restrict__ nms_count)
{
    const int img = blockIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = min(cand_count[img], kMaxCand);
    if (k == 0) nms_count[img] = n;
    if (k >= kMaxCand) return;
    const size_t dst = (size_t)img * kMaxCand + k;
    if (k < n) {
        const size_t src = (size_t)img * kAnchors + k;
        const int a = sorted_idx[src];
        nms_boxes[dst] = boxes[(size_t)img * kAnchors + a];
        nms_scores[dst] = sorted_score[src];
        nms_cls[dst] = best_class[(size_t)img * kAnchors + a];
    } else {
        nms_boxes[dst] = make_float4(0.f, 0.f, 0.f, 0.f);
        nms_scores[dst] = 0.f;
        nms_cls[dst] = -1;
    }
}

// ---------------------------------------------------------------------------------------------
// NMS, bitmask style (as in torchvision's CUDA nms): block (row tile, col tile, image) of 64x64
// box pairs; bit j of mask[i][col tile] is set when box j (j > i) overlaps box i of the same class
// by more than the IoU threshold.
// ---------------------------------------------------------------------------------------------
constexpr int kNmsBlock = 64;

__device__ __forceinline__ float box_iou(const float4 a, const float4 b)
{
    const float left = fmaxf(a.x, b.x), right = fminf(a.z, b.z);
    const float top = fmaxf(a.y, b.y), bottom = fminf(a.w, b.w);
    const float w = fmaxf(right - left, 0.f), h = fmaxf(bottom - top, 0.f);
    const float inter = w * h;
    const float area_a = (a.z - a.x) * (a.w - a.y);
    const float area_b = (b.z - b.x) * (b.w - b.y);
    const float uni = area_a + area_b - inter;
    return uni > 0.f ? inter / uni : 0.f;
}

__global__ void nms_mask_kernel(const float4* __restrict__ boxes, const int* __restrict__ cls,
                                const int* __restrict__ count, float iou_thresh,
                                unsigned long long* __restrict__ mask)
{
    const int img = blockIdx.z;
    const int n = count[img];
    const int row_start = blockIdx.y, col_start = blockIdx.x;
    if (col_start < row_start || row_start * kNmsBlock >= n || col_start * kNmsBlock >= n) return;
    const int row_size = min(n - row_start * kNmsBlock, kNmsBlock);
    const int col_size = min(n - col_start * kNmsBlock, kNmsBlock);

    __shared__ float4 col_boxes[kNmsBlock];
    __shared__ int col_cls[kNmsBlock];
    const size_t img_off = (size_t)img * kMaxCand;
    if (threadIdx.x < col_size) {
        col_boxes[threadIdx.x] = boxes[img_off + col_start * kNmsBlock + threadIdx.x];
        col_cls[threadIdx.x] = cls[img_off + col_start * kNmsBlock + threadIdx.x];
    }
    __syncthreads();
    if (threadIdx.x < row_size) {
        const int i = row_start * kNmsBlock + threadIdx.x;
        const float4 cur = boxes[img_off + i];
        const int cur_cls = cls[img_off + i];
        unsigned long long bits = 0;
        const int start = (row_start == col_start) ? threadIdx.x + 1 : 0;
        for (int j = start; j < col_size; ++j) {
            if (col_cls[j] == cur_cls && box_iou(cur, col_boxes[j]) > iou_thresh) bits |= 1ULL << j;
        }
        mask[(img_off + i) * kMaskWords + col_start] = bits;
    }
}

// Greedy reduction of the mask: one warp per image walks the boxes in score order, keeps a box
// unless an earlier kept box removed it, and ORs the kept box's mask row into `removed`.
// Stops after kMaxDet detections. Unused detection slots are zeroed (class -1).
__global__ void nms_reduce_kernel(const unsigned long long* __restrict__ mask, const float4* __restrict__ boxes,
                                  const float* __restrict__ scores, const int* __restrict__ cls,
                                  const int* __restrict__ count, float4* __restrict__ det_boxes,
                                  float* __restrict__ det_scores, int* __restrict__ det_cls,
                                  int* __restrict__ det_count)
{
    __shared__ unsigned long long removed[kMaskWords];
    const int img = blockIdx.x;
    const int lane = threadIdx.x & 31;
    for (int w = lane; w < kMaskWords; w += 32) removed[w] = 0ULL;
    __syncwarp();
    const int n = count[img];
    const size_t img_off = (size_t)img * kMaxCand;
    const size_t det_off = (size_t)img * kMaxDet;
    int kept = 0;
    for (int i = 0; i < n && kept < kMaxDet; ++i) {
        const int word = i >> 6;
        const bool is_removed = (removed[word] >> (i & 63)) & 1ULL;
        __syncwarp();
        if (!is_removed) {  // uniform: every lane read the same word
            if (lane == 0) {
                det_boxes[det_off + kept] = boxes[img_off + i];
                det_scores[det_off + kept] = scores[img_off + i];
                det_cls[det_off + kept] = cls[img_off + i];
            }
            const unsigned long long* row = mask + (img_off + i) * kMaskWords;
            for (int w = word + lane; w < kMaskWords; w += 32) removed[w] |= row[w];
            ++kept;
        }
        __syncwarp();
    }
    for (int k = kept + lane; k < kMaxDet; k += 32) {
        det_boxes[det_off + k] = make_float4(0.f, 0.f, 0.f, 0.f);
        det_scores[det_off + k] = 0.f;
        det_cls[det_off + k] = -1;
    }
    if (lane == 0) det_count[img] = kept;
}

// ---------------------------------------------------------------------------------------------
// ROI align (torchvision semantics, aligned=True, fixed sampling ratio) of every detection slot
// over the NCHW feature map; output [B * kMaxDet, kFeatC, kPool, kPool].
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ float bilinear(const float* __restrict__ f, int h, int w, float y, float x)
{
    if (y < -1.0f || y > h || x < -1.0f || x > w) return 0.f;
    y = fmaxf(y, 0.f);
    x = fmaxf(x, 0.f);
    int y0 = (int)y, x0 = (int)x, y1, x1;
    if (y0 >= h - 1) { y1 = y0 = h - 1; y = (float)y0; } else { y1 = y0 + 1; }
    if (x0 >= w - 1) { x1 = x0 = w - 1; x = (float)x0; } else { x1 = x0 + 1; }
    const float ly = y - y0, lx = x - x0, hy = 1.f - ly, hx = 1.f - lx;
    return hy * hx * f[y0 * w + x0] + hy * lx * f[y0 * w + x1] + ly * hx * f[y1 * w + x0] + ly * lx * f[y1 * w + x1];
}

__global__ void roi_align_kernel(const float* __restrict__ feat, const float4* __restrict__ rois, int num_rois,
                                 float spatial_scale, float* __restrict__ out)
{
    const long long total = (long long)num_rois * kFeatC * kPool * kPool;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)blockDim.x * gridDim.x) {
        const int pw = (int)(idx % kPool);
        const int ph = (int)((idx / kPool) % kPool);
        const int c = (int)((idx / (kPool * kPool)) % kFeatC);
        const int r = (int)(idx / ((long long)kPool * kPool * kFeatC));
        const int img = r / kMaxDet;
        const float4 b = rois[r];
        const float x1 = b.x * spatial_scale - 0.5f, y1 = b.y * spatial_scale - 0.5f;
        const float x2 = b.z * spatial_scale - 0.5f, y2 = b.w * spatial_scale - 0.5f;
        const float bin_w = (x2 - x1) / kPool, bin_h = (y2 - y1) / kPool;
        const float* f = feat + ((size_t)img * kFeatC + c) * kFeatH * kFeatW;
        float acc = 0.f;
        for (int iy = 0; iy < kSampling; ++iy) {
            const float y = y1 + ph * bin_h + (iy + 0.5f) * bin_h / kSampling;
            for (int ix = 0; ix < kSampling; ++ix) {
                const float x = x1 + pw * bin_w + (ix + 0.5f) * bin_w / kSampling;
                acc += bilinear(f, kFeatH, kFeatW, y, x);
            }
        }
        out[idx] = acc / (kSampling * kSampling);
    }
}

// ---- launchers -------------------------------------------------------------------------------
void launch_softmax(const float* head, const float* cls_bias, int rows, float* probs, float* best_score,
                    int* best_class, cudaStream_t s)
{
    const int rows_per_block = 256 / 32;
    softmax_scores_kernel<<<(rows + rows_per_block - 1) / rows_per_block, 256, 0, s>>>(head, cls_bias, rows, probs,
                                                                                       best_score, best_class);
    KERNEL_CHECK();
}

void launch_decode(const float* head, const float* box_bias, int batch, float4* boxes, cudaStream_t s)
{
    const int rows = batch * kAnchors;
    decode_boxes_kernel<<<(rows + 255) / 256, 256, 0, s>>>(head, box_bias, rows, boxes);
    KERNEL_CHECK();
}

void launch_compact(const float* best_score, int batch, float* cand_score, int* cand_idx, int* cand_count,
                    int* seg_begin, int* seg_end, cudaStream_t s)
{
    compact_scores_kernel<<<batch, 1024, 0, s>>>(best_score, kScoreThresh, cand_score, cand_idx, cand_count,
                                                 seg_begin, seg_end);
    KERNEL_CHECK();
}

size_t sort_temp_bytes(int batch)
{
    size_t bytes = 0;
    const int n = batch * kAnchors;
    CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairsDescending(
        nullptr, bytes, (const float*)nullptr, (float*)nullptr, (const int*)nullptr, (int*)nullptr, n, batch,
        (const int*)nullptr, (const int*)nullptr));
    return bytes;
}

void launch_sort(void* temp, size_t temp_bytes, const float* cand_score, const int* cand_idx, float* sorted_score,
                 int* sorted_idx, const int* seg_begin, const int* seg_end, int batch, cudaStream_t s)
{
    CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairsDescending(temp, temp_bytes, cand_score, sorted_score,
                                                                  cand_idx, sorted_idx, batch * kAnchors, batch,
                                                                  seg_begin, seg_end, 0, 32, s));
}

void launch_gather(const float* sorted_score, const int* sorted_idx, const int* cand_count, const float4* boxes,
                   const int* best_class, int batch, float4* nms_boxes, float* nms_scores, int* nms_cls,
                   int* nms_count, cudaStream_t s)
{
    dim3 grid(kMaxCand / 256, batch);
    gather_candidates_kernel<<<grid, 256, 0, s>>>(sorted_score, sorted_idx, cand_count, boxes, best_class, nms_boxes,
                                                  nms_scores, nms_cls, nms_count);
    KERNEL_CHECK();
}

void launch_nms(const float4* nms_boxes, const int* nms_cls, const float* nms_scores, const int* nms_count,
                int batch, unsigned long long* mask, float4* det_boxes, float* det_scores, int* det_cls,
                int* det_count, cudaStream_t s)
{
    dim3 grid(kMaskWords, kMaskWords, batch);
    nms_mask_kernel<<<grid, kNmsBlock, 0, s>>>(nms_boxes, nms_cls, nms_count, kIouThresh, mask);
    KERNEL_CHECK();
    nms_reduce_kernel<<<batch, 32, 0, s>>>(mask, nms_boxes, nms_scores, nms_cls, nms_count, det_boxes, det_scores,
                                           det_cls, det_count);
    KERNEL_CHECK();
}

void launch_roi_align(const float* feat_nchw, const float4* det_boxes, int batch, float* pooled, cudaStream_t s)
{
    const long long total = (long long)batch * kMaxDet * kFeatC * kPool * kPool;
    const int grid = (int)((total + 255) / 256);
    roi_align_kernel<<<grid, 256, 0, s>>>(feat_nchw, det_boxes, batch * kMaxDet, 1.0f / kStride, pooled);
    KERNEL_CHECK();
}

}  // namespace det
