/*
 * bench_common.h: the harness the benchmarks share, standard MPI C only so
 * each benchmark builds against any MPI. It holds the common options
 * (--min/--max/--iters/--time), the sizing of a run from warm-up calls, and
 * the per-size summary every timed table reports (the slowest rank's
 * average and median, the fastest and slowest single call).
 */
#ifndef FERRY_BENCH_COMMON_H
#define FERRY_BENCH_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_args {
  long min_bytes, max_bytes; /* sizes double from min to max */
  int max_iters;             /* at most this many timed calls per size */
  double max_time;           /* and about this many seconds per size */
};

/* "4M" = 4 MiB, "64k" = 64 KiB. */
static inline long bench_parse_size(const char *text) {
  char *end = NULL;
  double v = strtod(text, &end);
  if (end != NULL && (*end == 'k' || *end == 'K')) v *= 1024;
  if (end != NULL && (*end == 'm' || *end == 'M')) v *= 1024 * 1024;
  return (long)v;
}

/* Consumes argv[*i] (and its value) if it is one of the common options;
 * returns 0 if it is not, so the caller can try its own. */
static inline int bench_parse_arg(struct bench_args *a, int argc, char **argv, int *i) {
  const char *opt = argv[*i];
  if (*i + 1 >= argc) return 0;
  if (!strcmp(opt, "--min")) a->min_bytes = bench_parse_size(argv[++*i]);
  else if (!strcmp(opt, "--max")) a->max_bytes = bench_parse_size(argv[++*i]);
  else if (!strcmp(opt, "--iters")) a->max_iters = atoi(argv[++*i]);
  else if (!strcmp(opt, "--time")) a->max_time = atof(argv[++*i]);
  else return 0;
  return 1;
}

/* How many timed calls fit in max_time at the warm-up pace (seconds per
 * call), clamped to [3, max_iters]. Rank 0 decides so that every rank of
 * comm makes the same calls. */
static inline int bench_iterations(double warm_per_call, const struct bench_args *a, MPI_Comm comm) {
  int iters = warm_per_call > 0 ? (int)(a->max_time / warm_per_call) : a->max_iters;
  if (iters > a->max_iters) iters = a->max_iters;
  if (iters < 3) iters = 3;
  MPI_Bcast(&iters, 1, MPI_INT, 0, comm);
  return iters;
}

/* A buffer for max_iters call times. */
static inline double *bench_times_alloc(const struct bench_args *a) {
  return malloc(sizeof(double) * (size_t)(a->max_iters > 3 ? a->max_iters : 3));
}

static inline int bench_compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Seconds; valid on rank 0 of comm. */
struct bench_stats {
  double avg, median; /* the slowest rank's */
  double min, max;    /* over all ranks' calls */
};

/* Summarizes n call times (sorted in place) over comm; collective. */
static inline struct bench_stats bench_summarize(double *times, int n, MPI_Comm comm) {
  double total = 0;
  for (int i = 0; i < n; i++) total += times[i];
  qsort(times, (size_t)n, sizeof(double), bench_compare_doubles);
  double mine[2] = {total / n, times[n / 2]}, slowest_rank[2] = {0, 0};
  struct bench_stats s = {0, 0, 0, 0};
  MPI_Reduce(mine, slowest_rank, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(&times[0], &s.min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
  MPI_Reduce(&times[n - 1], &s.max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  s.avg = slowest_rank[0];
  s.median = slowest_rank[1];
  return s;
}

#endif
