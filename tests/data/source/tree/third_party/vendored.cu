__global__ void vendored_kernel() {}
