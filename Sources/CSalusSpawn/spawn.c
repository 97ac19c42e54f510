#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <spawn.h>
#include <unistd.h>

#include "CSalusSpawn.h"

int csalus_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int csalus_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int csalus_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}

/* The kernel's struct sigaction (rt_sigaction's, not glibc's): glibc's sigaction refuses the
   signals it keeps for itself (32 and 33), which a process can still inherit as ignored. */
struct csalus_kernel_sigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    unsigned long mask;
};

void csalus_reset_signals(void) {
    for (int signal = 1; signal < 65; signal++) {
        if (signal == SIGKILL || signal == SIGSTOP) continue;
        struct csalus_kernel_sigaction old = {0};
        if (syscall(SYS_rt_sigaction, signal, NULL, &old, sizeof(old.mask)) != 0) continue;
        if (old.handler != SIG_IGN) continue;
        struct csalus_kernel_sigaction fresh = {0};
        fresh.handler = SIG_DFL;
        syscall(SYS_rt_sigaction, signal, &fresh, NULL, sizeof(fresh.mask));
    }
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
}
