// Qualifier macros a project defines once in a header (issue 3).
#pragma once
#define DEV __device__ __forceinline__
#define KERN __global__
