/*
 * An aggregator never holds more than its collective buffer (issue 14):
 * with cb_buffer_size 64 KiB, the blocks and the landing area of every
 * aggregator of every two-phase call, as FERRY_DEBUG=io reports them
 * ("held N"), sum to at most cb_buffer_size, double-buffered or not
 * (src/io/block_pipeline.h, src/io/file_domains.cc), writes and reads; and
 * what a process packs apart ("staged", a buffer that is not dense or a
 * converting view) is at most a window per aggregator, not the request.
 *
 * Patterns, each write_all then read_all, the file judged byte for byte
 * with plain reads, and the data read back judged too:
 *   interleaved  rank r owns 1000 bytes at r * 1000 of every tile (pieces
 *                straddle rounds)
 *   holes        the same, each tile ending in 536 bytes nobody writes
 *                (read-modify-write; the file's old bytes must stay)
 *   strided      rank r owns the r-th 8-byte element of every tile, from a
 *                strided memory type (every other 8 bytes; the gaps must
 *                stay): many runs a round, own pieces copied without a
 *                message, the senders' packing
 *   overlap      (Ferry only) every rank writes the same 256 KiB, then
 *                every rank reads all of it: a round brings the aggregator
 *                more than its landing area holds, so it takes it in
 *                batches; where bytes are written by several ranks the
 *                highest rank's are the file's (MPI-3.1 §13.6.1 leaves it
 *                undefined; Ferry follows ROMIO)
 *   external32   (Ferry only) the interleaved layout in ints, through an
 *                external32 view, from a memory type of 3 ints (12 bytes,
 *                which no window divides: rounds and domains cut
 *                elements); each round's pieces are converted on their
 *                way, both ways;
 *                and a long that does not fit 4 bytes on one rank fails
 *                write_all on every rank with nothing written
 * each double-buffered and not, with 1 and 2 aggregators.
 *
 * Rank 0 points its stderr at a scratch file during the calls to read the
 * debug lines back; the ctest sets FERRY_DEBUG=io. Under another MPI only
 * the data is checked.
 */
#define TEST_NAME "io_cb_memory"
#include "mpitest.h"
#include "iotest.h"

static int rank, size;

enum { CB = 65536, BLOCK = 1000, GAP = 536, TILES = 400, ELEMENT = 8, ELEMENT_TILES = 16384,
       OVERLAP = 256 * 1024 };
enum Pattern { INTERLEAVED, HOLES, STRIDED, OVERLAP_ALL, PATTERNS };
static const char *pattern_name[] = {"interleaved", "holes", "strided", "overlap"};

static unsigned char before_byte(size_t i) { return (unsigned char)(i * 31 + 7); }

/* The largest "held" figure seen, and the number of two-phase lines. */
static unsigned long long most_held;
static int two_phase_lines;

/* "64 KiB", "21 KiB", "4097 B" as collective.cc's amount() prints them. */
static unsigned long long parse_amount(const char *at) {
  char *end = NULL;
  unsigned long long v = strtoull(at, &end, 10);
  if (strncmp(end, " MiB", 4) == 0) return v << 20;
  if (strncmp(end, " KiB", 4) == 0) return v << 10;
  CHECK(strncmp(end, " B", 2) == 0, "cannot read an amount in \"%.40s\"", at);
  return v;
}

/* Every two-phase line of `text`: each aggregator's "held" against the
 * line's cb_buffer_size. */
static void judge_debug_lines(const char *text, const char *what) {
  for (const char *line = text; line && *line;) {
    const char *next = strchr(line, '\n');
    size_t len = next ? (size_t)(next - line) : strlen(line);
    char copy[2048];
    snprintf(copy, sizeof copy, "%.*s", (int)(len < sizeof copy ? len : sizeof copy - 1), line);
    const char *cb = strstr(copy, "(cb_buffer_size ");
    if (strstr(copy, "two-phase") && cb) {
      unsigned long long budget = parse_amount(cb + strlen("(cb_buffer_size "));
      CHECK(budget == CB, "%s: the line says cb_buffer_size %llu: %s", what, budget, copy);
      int aggregators = 0;
      for (const char *h = strstr(copy, ", held "); h; h = strstr(h + 1, ", held ")) {
        unsigned long long held = parse_amount(h + strlen(", held "));
        CHECK(held <= budget, "%s: an aggregator held %llu bytes, over cb_buffer_size %llu: %s", what, held, budget,
              copy);
        if (held > most_held) most_held = held;
        aggregators++;
      }
      CHECK(aggregators > 0, "%s: no \"held\" in %s", what, copy);
      /* A buffer that is not one dense run (or a converting view) is packed
       * a round at a time: at most a window per aggregator (and an element
       * or two cut by the rounds), never the request. */
      const char *staged = strstr(copy, "staged at most ");
      const char *window = strstr(copy, " rounds of ");
      if (staged && window) {
        unsigned long long bytes = parse_amount(staged + strlen("staged at most "));
        unsigned long long w = parse_amount(window + strlen(" rounds of "));
        CHECK(bytes <= (unsigned long long)aggregators * w + 4096,
              "%s: a process staged %llu bytes, over %d windows of %llu: %s", what, bytes, aggregators, w, copy);
      }
      two_phase_lines++;
    }
    line = next ? next + 1 : NULL;
  }
}

/* Rank 0's stderr, into a scratch file while `capture` is on. */
static int saved_stderr = -1;
static char capture_path[600];
static void capture_begin(void) {
  if (rank != 0) return;
  fflush(stderr);
  io_path("stderr", capture_path, sizeof capture_path);
  int fd = open(capture_path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  CHECK(fd >= 0, "open(%s): %s", capture_path, strerror(errno));
  saved_stderr = dup(2);
  dup2(fd, 2);
  close(fd);
}
static void capture_end(const char *what) {
  if (rank != 0) return;
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  size_t bytes = 0;
  unsigned char *text = io_slurp(capture_path, &bytes);
  char *z = (char *)mt_malloc(bytes + 1);
  memcpy(z, text, bytes);
  z[bytes] = '\0';
  fputs(z, stderr); /* the lines still show in the test's log */
  judge_debug_lines(z, what);
  free(z);
  free(text);
  unlink(capture_path);
}

static uint32_t seed_of(int owner, int pattern, int db, int aggregators) {
  return mt_seed((uint32_t)owner, (uint32_t)(pattern * 8 + db * 4 + aggregators), 23);
}

static void one_case(int pattern, int db, int aggregators) {
  char what[128];
  snprintf(what, sizeof what, "%s, %s, %d aggregator%s", pattern_name[pattern], db ? "double-buffered" : "one block",
           aggregators, aggregators == 1 ? "" : "s");
  /* The file's layout: a tile of `slot` bytes per rank (and the gap). */
  const size_t slot = pattern == STRIDED ? ELEMENT : pattern == OVERLAP_ALL ? OVERLAP : BLOCK;
  const size_t tiles = pattern == STRIDED ? ELEMENT_TILES : TILES;
  const size_t tile = pattern == OVERLAP_ALL ? OVERLAP : slot * (size_t)size + (pattern == HOLES ? GAP : 0);
  const size_t file_bytes = pattern == OVERLAP_ALL ? OVERLAP : tile * tiles;
  const size_t mine = pattern == OVERLAP_ALL ? OVERLAP : slot * tiles;
  char path[600];
  io_path("data", path, sizeof path);

  if (rank == 0) {
    unsigned char *old = (unsigned char *)mt_malloc(file_bytes);
    for (size_t i = 0; i < file_bytes; i++) old[i] = before_byte(i);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    CHECK(fd >= 0, "open(%s): %s", path, strerror(errno));
    CHECK(pwrite(fd, old, file_bytes, 0) == (ssize_t)file_bytes, "pwrite: %s", strerror(errno));
    close(fd);
    free(old);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Info info;
  char nodes[16], cb[16];
  snprintf(nodes, sizeof nodes, "%d", aggregators);
  snprintf(cb, sizeof cb, "%d", CB);
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", cb);
  MPI_Info_set(info, "cb_nodes", nodes);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "ferry_cb_double_buffer", db ? "enable" : "disable");

  /* The view: this rank's slot of every tile (the overlap: all of it). */
  MPI_Datatype filetype = MPI_BYTE, one;
  MPI_Offset disp = 0;
  if (pattern != OVERLAP_ALL) {
    MPI_Type_contiguous((int)slot, MPI_BYTE, &one);
    MPI_Type_create_resized(one, 0, (MPI_Aint)tile, &filetype);
    MPI_Type_commit(&filetype);
    MPI_Type_free(&one);
    disp = (MPI_Offset)(slot * (size_t)rank);
  }
  /* Memory: dense, or every other 8 bytes (strided). */
  const int strided = pattern == STRIDED;
  MPI_Datatype memtype = MPI_BYTE;
  int count = (int)mine;
  size_t span = mine;
  if (strided) {
    MPI_Type_vector((int)(mine / ELEMENT), ELEMENT, 2 * ELEMENT, MPI_BYTE, &memtype);
    MPI_Type_commit(&memtype);
    count = 1;
    span = 2 * mine - ELEMENT;
  }
  unsigned char *data = (unsigned char *)mt_malloc(mine), *memory = (unsigned char *)mt_malloc(span);
  uint32_t seed = seed_of(rank, pattern, db, aggregators);
  mt_fill(data, mine, seed);
  memset(memory, 0xA5, span);
  for (size_t e = 0; e < mine / slot; e++) memcpy(memory + (strided ? 2 * e * slot : e * slot), data + e * slot, slot);

  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_BYTE, filetype, "native", info));
  capture_begin();
  CHECK_MPI(MPI_File_write_all(fh, memory, count, memtype, &st));
  capture_end(what);
  CHECK(io_status_bytes(&st) == (long long)mine, "%s: write_all moved %lld bytes", what,
        (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_close(&fh));

  if (rank == 0) {
    size_t got_bytes = 0;
    unsigned char *got = io_slurp(path, &got_bytes);
    CHECK(got_bytes == file_bytes, "%s: the file is %zu bytes, expected %zu", what, got_bytes, file_bytes);
    for (size_t i = 0; i < file_bytes; i++) {
      size_t t = i / tile, in = i % tile;
      unsigned char want;
      if (pattern == OVERLAP_ALL) want = mt_byte(seed_of(size - 1, pattern, db, aggregators), i);
      else if (in < slot * (size_t)size)
        want = mt_byte(seed_of((int)(in / slot), pattern, db, aggregators), t * slot + in % slot);
      else want = before_byte(i);
      CHECK(got[i] == want, "%s: file byte %zu is %u, expected %u", what, i, got[i], want);
    }
    free(got);
  }

  /* Back through read_all, into the same memory layout; the gaps of the
   * strided type keep their 0x5A. */
  memset(memory, 0x5A, span);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_BYTE, filetype, "native", info));
  capture_begin();
  CHECK_MPI(MPI_File_read_all(fh, memory, count, memtype, &st));
  capture_end(what);
  CHECK(io_status_bytes(&st) == (long long)mine, "%s: read_all moved %lld bytes", what,
        (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_close(&fh));
  uint32_t expect = pattern == OVERLAP_ALL ? seed_of(size - 1, pattern, db, aggregators) : seed;
  for (size_t e = 0; e < mine / slot; e++)
    for (size_t b = 0; b < slot; b++) {
      size_t at = strided ? 2 * e * slot + b : e * slot + b;
      CHECK(memory[at] == mt_byte(expect, e * slot + b), "%s: read_all byte %zu is %u, expected %u", what,
            e * slot + b, memory[at], mt_byte(expect, e * slot + b));
      if (strided && e + 1 < mine / slot)
        CHECK(memory[at + slot] == 0x5A, "%s: read_all wrote into the memory type's gap at %zu", what, at + slot);
    }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);
  if (pattern != OVERLAP_ALL) MPI_Type_free(&filetype);
  if (strided) MPI_Type_free(&memtype);
  MPI_Info_free(&info);
  free(data);
  free(memory);
}

/* The interleaved layout in big-endian ints through "external32". */
enum { SLOT_INTS = 250, INT_TILES = 300 };
static int int_value(int owner, size_t i) { return (int)(owner * 1000003 + (int)i * 7 - 5000); }

static void one_external32(int db, int aggregators) {
  char what[128];
  snprintf(what, sizeof what, "external32, %s, %d aggregator%s", db ? "double-buffered" : "one block", aggregators,
           aggregators == 1 ? "" : "s");
  const size_t mine = (size_t)SLOT_INTS * INT_TILES; /* ints */
  const size_t tile = (size_t)SLOT_INTS * 4 * (size_t)size;
  const size_t file_bytes = tile * INT_TILES;
  char path[600], cb[16], nodes[16];
  io_path("ext32", path, sizeof path);
  snprintf(cb, sizeof cb, "%d", CB);
  snprintf(nodes, sizeof nodes, "%d", aggregators);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", cb);
  MPI_Info_set(info, "cb_nodes", nodes);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "ferry_cb_double_buffer", db ? "enable" : "disable");
  MPI_Datatype slot, filetype, triple;
  MPI_Type_contiguous(SLOT_INTS, MPI_INT, &slot);
  MPI_Type_create_resized(slot, 0, (MPI_Aint)tile, &filetype);
  MPI_Type_commit(&filetype);
  MPI_Type_free(&slot);
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  int *data = (int *)mt_malloc(mine * sizeof(int));
  for (size_t i = 0; i < mine; i++) data[i] = int_value(rank, i);

  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)SLOT_INTS * 4 * rank, MPI_INT, filetype, "external32", info));
  capture_begin();
  CHECK_MPI(MPI_File_write_all(fh, data, (int)(mine / 3), triple, &st));
  capture_end(what);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    size_t got_bytes = 0;
    unsigned char *got = io_slurp(path, &got_bytes);
    CHECK(got_bytes == file_bytes, "%s: the file is %zu bytes, expected %zu", what, got_bytes, file_bytes);
    for (size_t at = 0; at < file_bytes; at += 4) {
      size_t t = at / tile, in = at % tile;
      int owner = (int)(in / (SLOT_INTS * 4));
      size_t i = t * SLOT_INTS + (in % (SLOT_INTS * 4)) / 4;
      unsigned v = (unsigned)int_value(owner, i);
      unsigned char want[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                               (unsigned char)v};
      CHECK(memcmp(got + at, want, 4) == 0, "%s: file bytes %zu-%zu are not rank %d's int %zu (%d) big-endian", what,
            at, at + 3, owner, i, (int)v);
    }
    free(got);
  }
  memset(data, 0, mine * sizeof(int));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)SLOT_INTS * 4 * rank, MPI_INT, filetype, "external32", info));
  capture_begin();
  CHECK_MPI(MPI_File_read_all(fh, data, (int)(mine / 3), triple, &st));
  capture_end(what);
  CHECK_MPI(MPI_File_close(&fh));
  for (size_t i = 0; i < mine; i++)
    CHECK(data[i] == int_value(rank, i), "%s: read_all int %zu is %d, expected %d", what, i, data[i],
          int_value(rank, i));

  /* A value external32 cannot hold, on the last rank only: MPI_ERR_CONVERSION
   * everywhere, before anything is written (the conversion is checked
   * before the rounds, which convert a round at a time). */
  if (sizeof(long) > 4) {
    enum { LONGS = 3000 };
    long *longs = (long *)mt_malloc(LONGS * sizeof(long));
    for (int i = 0; i < LONGS; i++) longs[i] = rank * LONGS + i;
    if (rank == size - 1) longs[LONGS - 1] = (long)1 << 40;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)4 * LONGS * rank, MPI_LONG, MPI_LONG, "external32", info));
    EXPECT_CLASS(MPI_File_write_all(fh, longs, LONGS, MPI_LONG, &st), MPI_ERR_CONVERSION, "MPI_File_write_all",
                 "");
    CHECK_MPI(MPI_File_close(&fh));
    if (rank == 0) {
      size_t got_bytes = 0;
      unsigned char *got = io_slurp(path, &got_bytes);
      CHECK(got_bytes == file_bytes, "%s: after the failed write the file is %zu bytes", what, got_bytes);
      for (size_t at = 0; at < (size_t)4 * LONGS * (size_t)size && at < file_bytes; at += 4) {
        size_t t = at / tile, in = at % tile;
        unsigned v = (unsigned)int_value((int)(in / (SLOT_INTS * 4)), t * SLOT_INTS + (in % (SLOT_INTS * 4)) / 4);
        CHECK(got[at] == (unsigned char)(v >> 24) && got[at + 3] == (unsigned char)v,
              "%s: the failed write_all changed file bytes %zu-%zu", what, at, at + 3);
      }
      free(got);
    }
    free(longs);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);
  MPI_Type_free(&filetype);
  MPI_Type_free(&triple);
  MPI_Info_free(&info);
  free(data);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  for (int pattern = 0; pattern < PATTERNS; pattern++) {
    if (pattern == OVERLAP_ALL && !mt_is_ferry()) continue;
    for (int db = 1; db >= 0; db--)
      for (int aggregators = 1; aggregators <= 2 && aggregators <= size; aggregators++)
        one_case(pattern, db, aggregators);
  }
  if (mt_is_ferry())
    for (int db = 1; db >= 0; db--)
      for (int aggregators = 1; aggregators <= 2 && aggregators <= size; aggregators++) one_external32(db, aggregators);
  if (rank == 0 && mt_is_ferry()) {
    const char *debug = getenv("FERRY_DEBUG");
    if (debug && strstr(debug, "io")) {
      CHECK(two_phase_lines > 0, "no two-phase line in FERRY_DEBUG=io's output");
      printf("io_cb_memory: %d two-phase calls, the most an aggregator held %llu of cb_buffer_size %d\n",
             two_phase_lines, most_held, CB);
    }
  }
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
