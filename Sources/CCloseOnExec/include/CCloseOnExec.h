#ifndef C_CLOSE_ON_EXEC_H
#define C_CLOSE_ON_EXEC_H

#include <spawn.h>
#include <sys/socket.h>

/// accept(2) whose new descriptor is close-on-exec from the start (accept4, SOCK_CLOEXEC):
/// no process started meanwhile by another thread holds a copy of the connection.
int ag_accept_cloexec(int fd, struct sockaddr *address, socklen_t *length);

/// Adds "close every descriptor from `lowest` up" to a posix_spawn file-action list
/// (glibc's posix_spawn_file_actions_addclosefrom_np). 0 or an errno value.
int ag_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
