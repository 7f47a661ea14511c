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
