/*
 * cell_handoff: the hardware floor under a 2-rank rooted collective of 1-64 KiB (bcast,
 * gather, scatter) in a stream of calls, with no MPI at all. A writer process hands BYTES
 * per operation to a reader process on another core, in one of two ways:
 *
 *   cells: as coll/shm does beyond a slot (coll/shm/segment.h): the writer copies its
 *          buffer into cell s % CELLS of shared memory and stores a record; the reader
 *          waits for the record, copies the cell into its own buffer and stores `left`;
 *          the writer reuses a cell once the reader has left the operation CELLS before
 *          (it runs up to CELLS - 1 operations ahead). Two copies, each line of the cell
 *          crossing cores twice per reuse (the reader pulls it, the writer takes it back).
 *   cma:   single copy: the reader reads the writer's own buffer with process_vm_readv
 *          and stores `left`; the writer, whose buffer may change once it returns,
 *          publishes the next operation only after that (one round trip per operation,
 *          as a rendezvous would be).
 *
 * Time is the least over batches of 500 operations (a batch that the scheduler did not
 * interrupt on a shared machine), per operation. Where an MPI library's figure for such
 * a call, in the same stream, is below the `cells` floor, it does not copy twice.
 *
 *   cell_handoff BYTES [cells|cma] [--cells N] [--writer memcpy|movsb] [--ops N]
 *
 * Figures on the 2-core Xeon VM of docs/performance.md (2026-11-30, load 3-10, least of 3
 * runs of 100,000 operations, 4 cells, writer movsb): 1 KiB 0.21 us (16 cells, the slot
 * ring's depth: 0.20), 4 KiB 0.45 (cma 0.63), 8 KiB 0.79 (cma 0.72), 16 KiB 1.45 (cma
 * 0.88). Either side alone (the other copying nothing) took 0.07-0.12 us at 4-8 KiB: the
 * cost is the lines going back and forth, not the copies. Tried, slower: the writer's
 * copy in 2 or 4 published pieces (8 KiB 0.88-1.11), non-temporal stores (0.85-0.89),
 * cldemote after the copy (1.53); the reader's copy by rep movsb or 512-bit loads with
 * prefetch: the same.
 *
 * Output: one line:  BYTES MODE cells=N writer=KIND ns_per_operation
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "two_cores.h"

enum { kCellBytes = 64 * 1024, kMaxCells = 16, kBatch = 500 };

struct flags {
  _Alignas(64) atomic_uint_least64_t record; /* written by the writer: operation s is ready */
  _Alignas(64) atomic_uint_least64_t left;   /* written by the reader: done with operation s */
};

static size_t bytes;
static int cells = 4, cma, movsb = 1;
static long ops = 100000;
static struct flags *flags;
static char *shared_cells, *src, *dst;
static pid_t writer_pid;

static void relax(void) {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

static void copy_in(char *to, const char *from, size_t n) {
#if defined(__x86_64__)
  if (movsb) {
    asm volatile("rep movsb" : "+D"(to), "+S"(from), "+c"(n) : : "memory");
    return;
  }
#endif
  memcpy(to, from, n);
}

static void wait_for(atomic_uint_least64_t *word, uint64_t target) {
  while (atomic_load_explicit(word, memory_order_acquire) < target) relax();
}

static char *cell(uint64_t s) { return shared_cells + (s % (uint64_t)cells) * kCellBytes; }

static void reader(void) {
  pin_to_core("cell_handoff", 1);
  for (uint64_t s = 1; s <= (uint64_t)ops; s++) {
    wait_for(&flags->record, s);
    if (cma) {
      struct iovec local = {dst, bytes}, remote = {src, bytes}; /* src: the same address in the writer */
      if (process_vm_readv(writer_pid, &local, 1, &remote, 1, 0) != (ssize_t)bytes) {
        perror("cell_handoff: process_vm_readv");
        _exit(1);
      }
    } else {
      memcpy(dst, cell(s), bytes);
    }
    atomic_store_explicit(&flags->left, s, memory_order_release);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: cell_handoff BYTES [cells|cma] [--cells N] [--writer memcpy|movsb] [--ops N]\n");
    return 2;
  }
  bytes = (size_t)strtoull(argv[1], NULL, 0);
  int i = 2;
  if (i < argc && argv[i][0] != '-') cma = strcmp(argv[i++], "cma") == 0;
  for (; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--cells")) cells = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--writer")) movsb = strcmp(argv[i + 1], "movsb") == 0;
    else if (!strcmp(argv[i], "--ops")) ops = atol(argv[i + 1]);
  }
  if (bytes == 0 || bytes > kCellBytes || cells < 1 || cells > kMaxCells || ops < kBatch) {
    fprintf(stderr, "cell_handoff: BYTES 1-%d, --cells 1-%d, --ops >= %d\n", kCellBytes, kMaxCells, kBatch);
    return 2;
  }
  /* The writer publishes operation s only after the reader left s - depth. */
  const uint64_t depth = cma ? 1 : (uint64_t)cells;
  char *mem = mmap(NULL, (size_t)kMaxCells * kCellBytes + sizeof(struct flags), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  src = aligned_alloc(4096, kCellBytes);
  dst = aligned_alloc(4096, kCellBytes);
  if (mem == MAP_FAILED || src == NULL || dst == NULL) return 1;
  shared_cells = mem;
  flags = (struct flags *)(mem + (size_t)kMaxCells * kCellBytes);
  memset(mem, 0, (size_t)kMaxCells * kCellBytes);
  memset(src, 1, kCellBytes);
  memset(dst, 2, kCellBytes);
  writer_pid = getpid();
  pid_t child = fork();
  if (child == 0) {
    reader();
    _exit(0);
  }
  pin_to_core("cell_handoff", 0);
  double best = 1e30, start = now_ns();
  uint64_t left_seen = 0;
  for (uint64_t s = 1; s <= (uint64_t)ops; s++) {
    if (s > depth && left_seen < s - depth) {
      wait_for(&flags->left, s - depth);
      left_seen = atomic_load_explicit(&flags->left, memory_order_acquire);
    }
    if (!cma) copy_in(cell(s), src, bytes);
    atomic_store_explicit(&flags->record, s, memory_order_release);
    if (s % kBatch == 0) {
      double t = now_ns();
      if ((t - start) / kBatch < best) best = (t - start) / kBatch;
      start = t;
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  printf("%zu %s cells=%d writer=%s %.1f\n", bytes, cma ? "cma" : "cells", cma ? 0 : cells, movsb ? "movsb" : "memcpy",
         best);
  return 0;
}
