#ifndef C_SALUS_MALLOC_H
#define C_SALUS_MALLOC_H

#include <stddef.h>

/// glibc's malloc tuning, which Swift's Glibc module does not export.
/// Limits the number of malloc arenas (M_ARENA_MAX); returns 1 on success, 0 on failure.
int salus_malloc_arena_max(int count);

/// The bytes malloc has handed out and not taken back, in every arena and in chunks of their own
/// (mallinfo2's uordblks and hblkhd): what the process has allocated, for measuring it.
size_t salus_malloc_allocated_bytes(void);

#endif
