__global__ void helper(float* x) { x[threadIdx.x] += 1.0f; }
