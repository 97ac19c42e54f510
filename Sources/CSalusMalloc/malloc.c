#include <malloc.h>
#include "CSalusMalloc.h"

int salus_malloc_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}

size_t salus_malloc_allocated_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
