#define _GNU_SOURCE 1
#include <spawn.h>
#include "vitrine-process.h"

int vitrine_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
