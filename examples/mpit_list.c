/*
 * mpit_list: what the MPI tool information interface (MPI_T, MPI-4.0
 * §15.3) shows of this MPI library: every control variable with its value,
 * every performance variable with its value after a little traffic (a
 * ping-pong between ranks 0 and 1, or with itself alone, and an
 * allreduce), every event type with its record, and the categories.
 *
 *   mpirun -n 2 ./mpit_list          rank 0 prints the lists
 *   ./mpit_list --cvar-names         only the control variables' names, one
 *                                    a line (no MPI_Init needed)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_cvars(int names_only) {
  int num = 0;
  MPI_T_cvar_get_num(&num);
  if (!names_only) printf("%d control variables:\n", num);
  for (int i = 0; i < num; ++i) {
    char name[256], value[1024] = "";
    int name_len = sizeof name, verbosity, bind, scope, count;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, NULL, NULL, &bind, &scope);
    if (names_only) {
      printf("%s\n", name);
      continue;
    }
    MPI_T_cvar_handle h;
    if (bind == MPI_T_BIND_NO_OBJECT && MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS) {
      if (type == MPI_INT && count == 1) {
        int v = 0;
        MPI_T_cvar_read(h, &v);
        snprintf(value, sizeof value, "%d", v);
      } else if (type == MPI_CHAR && count <= (int)sizeof value) {
        MPI_T_cvar_read(h, value);
      }
      MPI_T_cvar_handle_free(&h);
    }
    printf("  %-40s = %-12s%s\n", name, value[0] ? value : "\"\"",
           scope == MPI_T_SCOPE_READONLY || scope == MPI_T_SCOPE_CONSTANT ? "" : "  (writable)");
  }
}

static const char *class_name(int c) {
  switch (c) {
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    case MPI_T_PVAR_CLASS_TIMER: return "timer";
    default: return "other";
  }
}

static void traffic(int rank, int size) {
  char buf[1000] = {0};
  int peer = size > 1 ? 1 - rank : rank;
  for (int i = 0; i < 10 && rank < 2; ++i) {
    MPI_Sendrecv_replace(buf, sizeof buf, MPI_CHAR, peer, 0, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int provided;
  if (argc > 1 && strcmp(argv[1], "--cvar-names") == 0) {
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    print_cvars(1);
    MPI_T_finalize();
    return 0;
  }
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);

  /* Handles on every performance variable, started before the traffic. */
  MPI_T_pvar_session session;
  MPI_T_pvar_session_create(&session);
  int npvars = 0;
  MPI_T_pvar_get_num(&npvars);
  MPI_T_pvar_handle *handles = calloc((size_t)npvars + 1, sizeof *handles);
  for (int i = 0; i < npvars; ++i) {
    int count;
    MPI_T_pvar_handle_alloc(session, i, NULL, &handles[i], &count);
  }
  MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES);
  traffic(rank, size);

  if (rank == 0) {
    print_cvars(0);
    printf("\n%d performance variables (rank 0, after 10 ping-pongs of 1000 bytes and an allreduce):\n", npvars);
    for (int i = 0; i < npvars; ++i) {
      char name[256];
      int name_len = sizeof name, var_class;
      unsigned long long v = 0;
      MPI_T_pvar_get_info(i, name, &name_len, NULL, &var_class, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
      MPI_T_pvar_read(session, handles[i], &v);
      printf("  %-48s %-14s %llu\n", name, class_name(var_class), v);
    }
    int nevents = 0;
    MPI_T_event_get_num(&nevents);
    printf("\n%d event types:\n", nevents);
    for (int i = 0; i < nevents; ++i) {
      char name[256], desc[1024];
      int name_len = sizeof name, desc_len = sizeof desc, n = 0;
      MPI_T_event_get_info(i, name, &name_len, NULL, NULL, NULL, &n, NULL, NULL, desc, &desc_len, NULL);
      printf("  %-32s %d elements: %s\n", name, n, desc);
    }
    int nsources = 0;
    MPI_T_source_get_num(&nsources);
    for (int i = 0; i < nsources; ++i) {
      char name[256];
      int name_len = sizeof name;
      MPI_Count ticks = 0;
      MPI_T_source_get_info(i, name, &name_len, NULL, NULL, NULL, &ticks, NULL, NULL);
      printf("  source %d: %s, %lld ticks per second\n", i, name, (long long)ticks);
    }
    int ncat = 0;
    MPI_T_category_get_num(&ncat);
    printf("\n%d categories:\n", ncat);
    for (int i = 0; i < ncat; ++i) {
      char name[256];
      int name_len = sizeof name, ncv = 0, npv = 0, nsub = 0, nev = 0;
      MPI_T_category_get_info(i, name, &name_len, NULL, NULL, &ncv, &npv, &nsub);
      MPI_T_category_get_num_events(i, &nev);
      printf("  %-20s %3d cvars %3d pvars %2d events %2d subcategories\n", name, ncv, npv, nev, nsub);
    }
  }
  MPI_T_pvar_session_free(&session);
  free(handles);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
