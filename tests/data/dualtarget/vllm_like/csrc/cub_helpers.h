#pragma once

#ifndef USE_ROCM
  #include <cub/cub.cuh>
using XvAddOp = cub::Sum;
using XvMaxOp = cub::Max;
#else
  #include <hipcub/hipcub.hpp>
namespace cub = hipcub;
using XvAddOp = hipcub::Sum;
using XvMaxOp = hipcub::Max;
#endif  // USE_ROCM
