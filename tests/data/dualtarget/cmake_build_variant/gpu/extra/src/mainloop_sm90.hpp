#pragma once
// generated instantiations include this; none is in the tree
__device__ inline void fence() { asm volatile("fence.proxy.async.shared::cta;"); }
