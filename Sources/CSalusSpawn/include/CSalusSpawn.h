#ifndef CSALUS_SPAWN_H
#define CSALUS_SPAWN_H

#include <spawn.h>

/// glibc's GNU extensions for posix_spawn and pipes, which its headers declare only under
/// _GNU_SOURCE (Swift's Glibc module is imported without it).

/// posix_spawn_file_actions_addchdir_np (glibc 2.29): the child's working directory.
int csalus_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): closes every descriptor from `from` up.
int csalus_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);

/// pipe2(ends, O_CLOEXEC): a pipe whose ends are closed on exec.
int csalus_pipe_cloexec(int ends[2]);

/// Leaves the calling thread as a freshly started program expects it, before an exec: every
/// signal that is ignored back to its default action (an exec keeps ignored signals ignored,
/// those glibc reserves included) and no signal blocked (the mask survives an exec too).
/// Handlers this process installed need nothing: an exec resets them.
void csalus_reset_signals(void);

#endif
