#ifndef CPROCESSCONTROL_H
#define CPROCESSCONTROL_H
/* prctl is variadic, which Swift cannot call: the few process controls OpenPhotoKit needs, one function each. */

/* Makes this process undumpable: processes of the same user can no longer ptrace it or open its /proc entries
   (fd/, environ, mem). Returns 0, or -1 with errno. */
int opk_set_undumpable(void);

/* Whether this process is dumpable (1), or not (0); -1 on error. */
int opk_is_dumpable(void);

#include <spawn.h>
/* posix_spawn_file_actions_addclosefrom_np (glibc ≥ 2.34), which Swift's Glibc module does not show: the child closes
   every descriptor from `lowest` on before it runs the program. Returns 0 or an error number. */
int opk_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);
#endif
