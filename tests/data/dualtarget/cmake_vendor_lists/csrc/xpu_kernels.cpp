// the XPU (SYCL) build's file: neither the CUDA nor the HIP build compiles it
int xpu_only(int lane) { return lane % 32; }
