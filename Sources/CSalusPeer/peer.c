#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CSalusPeer.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int csalus_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int csalus_pidfd_is_running(int pidfd) {
    if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0) return 1;
    return errno == ESRCH ? 0 : -1;
}

int csalus_user_namespace_owner(int namespace_fd, uid_t *owner) {
    return ioctl(namespace_fd, NS_GET_OWNER_UID, owner);
}

int csalus_open_in_root(int root_fd, const char *path) {
    struct open_how how = {0};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
}
