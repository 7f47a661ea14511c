// Qualifier macros of a project header: plain kernels, bounded kernels, device symbols.
#pragma once
#define KERN __global__
#define BOUNDED_KERN __global__ __launch_bounds__(128)
#define DEV __device__
