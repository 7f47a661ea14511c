// A device variable declared through DEV (kern.h) and defined in another translation unit.
#include "kern.h"

extern DEV float scale_factor;
extern int host_only_count;

KERN void scale(float* x) {
    x[threadIdx.x] *= scale_factor;
}

void launch_scale(float* x) {
    host_only_count += 1;
    scale<<<1, 64>>>(x);
}

KERN void __launch_bounds__(64) stage(float* x) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = x[threadIdx.x];
    x[threadIdx.x] = buf[63 - threadIdx.x];
}
