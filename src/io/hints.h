// The MPI-IO hints Ferry acts on (MPI-3.1 §13.2.8, the reserved keys, and
// ROMIO's keys that programs and HDF5 set), parsed once when they change
// (MPI_File_open, MPI_File_set_view, MPI_File_set_info), so that a data
// access reads numbers, never strings.
//
//   cb_buffer_size       an aggregator's collective buffer (16 MiB), all
//                        it holds for a collective access: one round's
//                        block and a landing area for the other processes'
//                        pieces, half of it each, or, double-buffered, two
//                        blocks and the landing area, a third each
//                        (io/block_pipeline.h, io/file_domains.cc)
//   ferry_cb_double_buffer  enable | disable: whether an aggregator writes
//                        (reads) one round's block on the I/O worker while
//                        the next round's data is exchanged (default enable;
//                        "automatic" means enable). Ferry's own key: ROMIO
//                        has no hint for it (its GPFS driver's threaded IO,
//                        which divides cb_buffer_size alike, is switched by
//                        the environment variable GPFSMPIO_PTHREADIO)
//   cb_nodes             the most aggregators (default: one per host)
//   cb_config_list       aggregators per host, "*:N" (default "*:1")
//   romio_cb_write/read  enable | disable | automatic: two-phase collective
//                        buffering, always, never, or where it pays
//                        (io/collective.cc)
//   striping_unit        file domains start at multiples of it (default
//                        4096: two aggregators never share a page)
//   romio_ds_read/write  enable | disable | automatic: data sieving of
//                        independent accesses (io/data_sieving.h)
//   ind_rd_buffer_size, ind_wr_buffer_size: its window
//
// A value that is not valid is ignored, as MPI-3.1 §9 requires, with one
// FERRY_DEBUG=io line; the key then reports the value in effect. The keys
// Ferry does not know are kept and reported as given.
#pragma once

#include <cstdint>
#include <string>

#include "base/info.h"

namespace ferry::io {

enum class Use { kAutomatic, kEnable, kDisable };

struct Hints {
  uint64_t cb_buffer_size = 16u << 20;
  int cb_nodes = 0;        // 0: one per host times cb_config_list's count
  int per_host = 1;        // cb_config_list "*:N"
  Use cb_write = Use::kAutomatic;
  Use cb_read = Use::kAutomatic;
  Use ds_write = Use::kAutomatic;
  Use ds_read = Use::kAutomatic;
  uint64_t ind_rd_buffer_size = 4u << 20;
  uint64_t ind_wr_buffer_size = 512u << 10;
  uint64_t striping_unit = 4096;
  Use double_buffer = Use::kEnable;
};

// Merges `given` (may be nullptr) into `all` (the file's hints, what
// MPI_File_get_info reports), parses the result into `parsed`, and writes
// the value in effect of every hint above back into `all`. `path` names the
// file in the diagnostics.
void apply_hints(Info& all, const Info* given, Hints& parsed, const std::string& path);

}  // namespace ferry::io
