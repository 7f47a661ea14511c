#include "kernel_traits.h"
int attn_entry() { return kTileM; }
