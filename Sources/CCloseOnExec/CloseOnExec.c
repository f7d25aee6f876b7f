// glibc declares accept4 and posix_spawn_file_actions_addclosefrom_np only for _GNU_SOURCE,
// which Swift's Glibc module does not define.
#define _GNU_SOURCE
#include "CCloseOnExec.h"

int ag_accept_cloexec(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_CLOEXEC);
}

int ag_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
