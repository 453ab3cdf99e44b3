#define _GNU_SOURCE
#include "processcontrol.h"
#include <sys/prctl.h>

int opk_set_undumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int opk_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

int opk_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
