#ifndef C_SALUS_MALLOC_H
#define C_SALUS_MALLOC_H

/// glibc's malloc tuning, which Swift's Glibc module does not export.
/// Limits the number of malloc arenas (M_ARENA_MAX); returns 1 on success, 0 on failure.
int salus_malloc_arena_max(int count);

#endif
