/*
 * Partitioned communication (MPI-4.0 chapter 4) on 2 ranks, two tables.
 *
 * 1. Cost per round: a ping-pong of one message of `bytes` as P partitions
 *    (MPI_Psend_init/MPI_Precv_init, every partition readied with its own
 *    MPI_Pready) against the same bytes as one MPI_Isend/MPI_Irecv, and as P
 *    MPI_Isends of bytes/P. Half round-trip times, median of the iterations;
 *    "per partition" is (partitioned - one Isend) / P.
 * 2. Early arrival: the sender produces P partitions one after the other,
 *    spending --work microseconds on each (a busy loop), and readies each
 *    as soon as it is made. The receiver reports when MPI_Parrived first
 *    shows partition 0, and when all have arrived, counted from a common
 *    start (a barrier), against one MPI_Send of the whole buffer made after
 *    the last partition.
 *
 *   mpirun -n 2 partitioned [--bytes 1M] [--parts 8] [--work 100] [--iters 200]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, iters = 200;

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp);
  return t[n / 2];
}

static void busy(double us) {
  double end = MPI_Wtime() + us * 1e-6;
  while (MPI_Wtime() < end) {
  }
}

/* Half round trip of one kind of exchange, in microseconds. */
enum kind { PARTITIONED, ONE_ISEND, MANY_ISENDS };
static double pingpong(enum kind k, char *buf, long bytes, int parts) {
  int peer = 1 - rank;
  long per = bytes / parts;
  MPI_Request s = MPI_REQUEST_NULL, r = MPI_REQUEST_NULL;
  MPI_Request *many = malloc(sizeof(MPI_Request) * (size_t)parts);
  if (k == PARTITIONED) {
    MPI_Psend_init(buf, parts, per, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(buf, parts, per, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  }
  double *t = malloc(sizeof(double) * (size_t)iters);
  for (int i = -10; i < iters; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int leg = 0; leg < 2; leg++) {
      int sending = (leg == 0) == (rank == 0);
      if (k == PARTITIONED) {
        if (sending) {
          MPI_Start(&s);
          for (int p = 0; p < parts; p++) MPI_Pready(p, s);
          MPI_Wait(&s, MPI_STATUS_IGNORE);
        } else {
          MPI_Start(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
      } else if (k == ONE_ISEND) {
        if (sending) MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &s);
        else MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
      } else {
        for (int p = 0; p < parts; p++) {
          if (sending) MPI_Isend(buf + p * per, (int)per, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &many[p]);
          else MPI_Irecv(buf + p * per, (int)per, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &many[p]);
        }
        MPI_Waitall(parts, many, MPI_STATUSES_IGNORE);
      }
    }
    if (i >= 0) t[i] = (MPI_Wtime() - t0) / 2 * 1e6;
  }
  if (k == PARTITIONED) {
    MPI_Request_free(&s);
    MPI_Request_free(&r);
  }
  double m = median(t, iters);
  free(t);
  free(many);
  return m;
}

/* Early arrival: returns (on rank 1) the median time to partition 0 and to all. */
static void early(char *buf, long bytes, int parts, double work, int partitioned, double *first, double *all) {
  long per = bytes / parts;
  MPI_Request req = MPI_REQUEST_NULL;
  if (partitioned) {
    if (rank == 0) MPI_Psend_init(buf, parts, per, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else MPI_Precv_init(buf, parts, per, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  }
  int n = iters / 4 > 10 ? iters / 4 : 10;
  double *tf = malloc(sizeof(double) * (size_t)n), *ta = malloc(sizeof(double) * (size_t)n);
  for (int i = -3; i < n; i++) {
    if (partitioned) MPI_Start(&req);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t_first = 0;
    if (rank == 0) {
      for (int p = 0; p < parts; p++) {
        busy(work);
        memset(buf + p * per, p, (size_t)per);
        if (partitioned) MPI_Pready(p, req);
      }
      if (partitioned) MPI_Wait(&req, MPI_STATUS_IGNORE);
      else MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    } else if (partitioned) {
      int flag = 0;
      while (!flag) MPI_Parrived(req, 0, &flag);
      t_first = MPI_Wtime() - t0;
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t_first = MPI_Wtime() - t0;
    }
    if (i >= 0) {
      tf[i] = t_first * 1e6;
      ta[i] = (MPI_Wtime() - t0) * 1e6;
    }
  }
  if (partitioned) MPI_Request_free(&req);
  *first = median(tf, n);
  *all = median(ta, n);
  free(tf);
  free(ta);
}

int main(int argc, char **argv) {
  long bytes = 1 << 20;
  int parts = 8;
  double work = 100;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--bytes")) {
      char *end;
      bytes = strtol(argv[i + 1], &end, 10);
      if (*end == 'k' || *end == 'K') bytes <<= 10;
      if (*end == 'm' || *end == 'M') bytes <<= 20;
    } else if (!strcmp(argv[i], "--parts")) parts = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--work")) work = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--iters")) iters = atoi(argv[i + 1]);
  }
  char *buf = malloc((size_t)bytes);
  memset(buf, 1, (size_t)bytes);
  if (rank == 0) printf("# cost per round (half round trip, us, median of %d)\n%10s %6s %12s %10s %12s %14s\n", iters,
                        "bytes", "parts", "partitioned", "one Isend", "P Isends", "per partition");
  static const long sizes[] = {4096, 65536, 1 << 20, 8 << 20};
  static const int counts[] = {1, 8, 64};
  for (int si = 0; si < 4; si++) {
    for (int ci = 0; ci < 3; ci++) {
      long b = sizes[si];
      int p = counts[ci];
      if (b > bytes && b != sizes[0]) {
        char *bigger = realloc(buf, (size_t)b);
        if (bigger == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
        buf = bigger;
        bytes = b;
      }
      double part = pingpong(PARTITIONED, buf, b, p);
      double one = pingpong(ONE_ISEND, buf, b, p);
      double many = pingpong(MANY_ISENDS, buf, b, p);
      if (rank == 0) printf("%10ld %6d %12.2f %10.2f %12.2f %14.3f\n", b, p, part, one, many, (part - one) / p);
    }
  }
  double f1 = 0, a1 = 0, f2 = 0, a2 = 0;
  long eb = 1 << 20;
  early(buf, eb, parts, work, 1, &f1, &a1);
  early(buf, eb, parts, work, 0, &f2, &a2);
  if (rank == 1)
    printf("# early arrival: %ld bytes in %d partitions, %.0f us of work each (us from the common start)\n"
           "%-28s %12s %12s\n%-28s %12.1f %12.1f\n%-28s %12.1f %12.1f\n",
           eb, parts, work, "", "first part", "all", "partitioned (Pready each)", f1, a1, "one MPI_Send after all",
           f2, a2);
  free(buf);
  MPI_Finalize();
  return 0;
}
