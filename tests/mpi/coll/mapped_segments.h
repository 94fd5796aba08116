/* How many shared-memory collective segments (coll/shm) this process maps:
 * the distinct /dev/shm/ferry-coll-* names in /proc/self/maps (Ferry's
 * only, Linux only). Included after ../mpitest.h (CHECK). */
#pragma once

static int mapped_segments(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL, "cannot open /proc/self/maps");
  char line[1024], seen[64][256];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char *name = strstr(line, "/ferry-coll-");
    if (name == NULL) continue;
    name[strcspn(name, " \n")] = 0;
    int known = 0;
    for (int i = 0; i < n && !known; i++) known = strcmp(seen[i], name) == 0;
    if (!known && n < 64) snprintf(seen[n++], sizeof seen[0], "%s", name);
  }
  fclose(f);
  return n;
}
