// preprocess.cu — image normalisation and feature layout kernels.
//
// These are the "clean" kernels of the example: element-wise or tiled work with no warp-size,
// mask or vendor assumption. A mechanical CUDA->HIP translation should carry them unchanged.
#include "detector.cuh"

namespace det {

// ImageNet statistics, as torchvision's detection transforms use them (RGB order).
__constant__ float c_mean[3] = {0.485f, 0.456f, 0.406f};
__constant__ float c_std[3] = {0.229f, 0.224f, 0.225f};

// uint8 [B, H, W, 3] (HWC, RGB) -> float [B, 3, H, W] (NCHW), (x / 255 - mean) / std.
// One thread per pixel; grid-stride so any grid size is correct.
__global__ void normalize_image_kernel(const unsigned char* __restrict__ img, float* __restrict__ out,
                                       int batch, int h, int w)
{
    const long long hw = (long long)h * w;
    const long long total = (long long)batch * hw;
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < total;
         p += (long long)blockDim.x * gridDim.x) {
        const long long b = p / hw;
        const long long pix = p - b * hw;
        const unsigned char* src = img + p * 3;
        float* dst = out + b * 3 * hw + pix;
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            dst[c * hw] = ((float)src[c] / 255.0f - c_mean[c]) / c_std[c];
        }
    }
}

// In-place y = max(x + bias[c], 0) over an NCHW tensor: the epilogue of each convolution.
// blockIdx.y is the (image, channel) plane, so the channel needs no per-element division.
__global__ void bias_relu_kernel(float* __restrict__ x, const float* __restrict__ bias, int c, int hw)
{
    const int plane = blockIdx.y;
    const float b = bias[plane % c];
    float* p = x + (size_t)plane * hw;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < hw; i += blockDim.x * gridDim.x) {
        p[i] = fmaxf(p[i] + b, 0.0f);
    }
}

// Tiled transpose through shared memory: per image, [C, HW] -> [HW, C], so that every anchor's
// feature vector is one contiguous row for the GEMM head. 32x32 tiles, +1 column of padding
// against shared-memory bank conflicts; block (32, 8), each thread moves 4 elements.
constexpr int kTile = 32;
constexpr int kTileRows = 8;

__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int c, int hw)
{
    __shared__ float tile[kTile][kTile + 1];
    const int b = blockIdx.z;
    const float* src = in + (size_t)b * c * hw;
    float* dst = out + (size_t)b * c * hw;

    int x = blockIdx.x * kTile + threadIdx.x;  // spatial index (columns of the input)
    int y = blockIdx.y * kTile + threadIdx.y;  // channel index (rows of the input)
    for (int j = 0; j < kTile; j += kTileRows) {
        if (x < hw && y + j < c) tile[threadIdx.y + j][threadIdx.x] = src[(size_t)(y + j) * hw + x];
    }
    __syncthreads();
    x = blockIdx.y * kTile + threadIdx.x;      // channel index (columns of the output)
    y = blockIdx.x * kTile + threadIdx.y;      // spatial index (rows of the output)
    for (int j = 0; j < kTile; j += kTileRows) {
        if (x < c && y + j < hw) dst[(size_t)(y + j) * c + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

static int grid_for(long long n, int block)
{
    long long g = (n + block - 1) / block;
    return (int)(g > 65535LL * 16 ? 65535LL * 16 : g);
}

void launch_normalize(const unsigned char* img_hwc, float* out_nchw, int batch, cudaStream_t s)
{
    const long long pixels = (long long)batch * kImageH * kImageW;
    normalize_image_kernel<<<grid_for(pixels, 256), 256, 0, s>>>(img_hwc, out_nchw, batch, kImageH, kImageW);
    KERNEL_CHECK();
}

void launch_bias_relu(float* x, const float* bias, int batch, int c, int hw, cudaStream_t s)
{
    dim3 grid((hw + 4 * 256 - 1) / (4 * 256), batch * c);  // 4 elements per thread
    bias_relu_kernel<<<grid, 256, 0, s>>>(x, bias, c, hw);
    KERNEL_CHECK();
}

void launch_transpose(const float* in_nchw, float* out_rows, int batch, int c, int hw, cudaStream_t s)
{
    dim3 block(kTile, kTileRows);
    dim3 grid((hw + kTile - 1) / kTile, (c + kTile - 1) / kTile, batch);
    transpose_tiled_kernel<<<grid, block, 0, s>>>(in_nchw, out_rows, c, hw);
    KERNEL_CHECK();
}

}  // namespace det
