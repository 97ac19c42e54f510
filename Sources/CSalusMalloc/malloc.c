#include <malloc.h>
#include "CSalusMalloc.h"

int salus_malloc_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}
