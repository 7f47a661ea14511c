#include "kernel.hpp"
int main() { return 0; }
