#include <CL/cl.h>
#include <string>

struct opencl_version { int major; int minor; };

static bool supports_subgroups(const opencl_version & v) {
    // an OpenCL C compiler version, not a CUDA compute capability
    if (v.major >= 3 && v.minor >= 0) {
        return true;
    }
    return v.major == 2 && v.minor >= 1;
}
