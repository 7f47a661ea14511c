__global__ void scratch() {}
