#ifndef VITRINE_PROCESS_H
#define VITRINE_PROCESS_H

#include <spawn.h>

/// posix_spawn_file_actions_addchdir_np (glibc 2.29): the child changes to `path` before exec.
/// A GNU extension, declared only under _GNU_SOURCE, which a Swift-visible header must not define
/// (it would change fd_set and other types that other modules see without it).
int vitrine_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
