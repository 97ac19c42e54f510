#ifndef CSALUS_PEER_H
#define CSALUS_PEER_H

#include <sys/types.h>

/// The Linux calls the daemon uses to look at a peer process, which Swift's Glibc module does
/// not export (variadic syscall and ioctl, headers it does not include).

/// pidfd_open(pid, 0): a descriptor that stays tied to this process even if its pid is reused;
/// -1 with errno (ESRCH: no such process).
int csalus_pidfd_open(pid_t pid);

/// Whether the process of `pidfd` is still running (pidfd_send_signal with signal 0): 1 if
/// it runs, 0 if it has exited, -1 with errno on another error.
int csalus_pidfd_is_running(int pidfd);

/// ioctl(NS_GET_OWNER_UID) on a user namespace descriptor (/proc/PID/ns/user): the uid that
/// created it, as the caller's namespace sees it; -1 with errno.
int csalus_user_namespace_owner(int namespace_fd, uid_t *owner);

/// openat2(root_fd, path, O_PATH, RESOLVE_IN_ROOT): looks `path` up as if `root_fd` were the
/// root, its links resolved inside it (a process's /proc/PID/root); a descriptor, or -1 with
/// errno (ENOENT: not there).
int csalus_open_in_root(int root_fd, const char *path);

#endif
