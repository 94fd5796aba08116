#include "coll/hier/local.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/packed_bytes.h"
#include "coll/shm/algorithms.h"

namespace ferry::coll::hier {

Err local_bcast_bytes(shm::CommSegment& seg, void* data, size_t bytes, int root) {
  const size_t piece = seg.cell_bytes();
  char* at = static_cast<char*>(data);
  // A call of 0 bytes still takes one operation: the others wait for the
  // root's flag (a barrier's release, bcast.cc).
  size_t done = 0;
  do {
    const size_t n = std::min(piece, bytes - done);
    if (Err e = shm::bcast(seg, at + done, static_cast<MPI_Count>(n), packed_bytes(), root)) return e;
    done += n;
  } while (done < bytes);
  return {};
}

Err local_bcast(shm::CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root) {
  const size_t bytes = type->bytes(count);
  // Contiguous types have no offset: the data are the bytes at buf.
  if (type->contiguous) return local_bcast_bytes(seg, buf, bytes, root);
  std::vector<char> packed(bytes);
  if (seg.rank() == root)
    if (Err e = copy_typed(buf, count, *type, packed.data(), static_cast<MPI_Count>(bytes), *packed_bytes())) return e;
  if (Err e = local_bcast_bytes(seg, packed.data(), bytes, root)) return e;
  if (seg.rank() == root) return {};
  return copy_typed(packed.data(), static_cast<MPI_Count>(bytes), *packed_bytes(), buf, count, *type);
}

Err local_reduce(shm::CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                 const Op* op, int root) {
  const MPI_Count per = static_cast<MPI_Count>(std::max<size_t>(1, seg.cell_bytes() / std::max<size_t>(1, type->size)));
  const bool mine_root = seg.rank() == root;
  for (MPI_Count first = 0; first < count; first += per) {
    const MPI_Count n = std::min(per, count - first);
    const size_t offset = type->bytes(first);
    const void* in = sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : static_cast<const char*>(sendbuf) + offset;
    void* out = mine_root ? static_cast<char*>(recvbuf) + offset : nullptr;
    if (Err e = shm::reduce(seg, in, out, n, type, op, root)) return e;
  }
  return {};
}

Err local_gather_bytes(shm::CommSegment& seg, const void* mine, size_t bytes, void* all, int root) {
  const size_t piece = seg.cell_bytes();
  const int n = seg.size();
  const bool mine_root = seg.rank() == root;
  // Whole blocks when they fit a cell: straight into place.
  if (bytes <= piece)
    return shm::gather(seg, mine, static_cast<MPI_Count>(bytes), packed_bytes(), all, static_cast<MPI_Count>(bytes),
                       packed_bytes(), root);
  std::vector<char> pieces(mine_root ? piece * static_cast<size_t>(n) : 0);
  for (size_t done = 0; done < bytes; done += piece) {
    const size_t len = std::min(piece, bytes - done);
    if (Err e = shm::gather(seg, static_cast<const char*>(mine) + done, static_cast<MPI_Count>(len), packed_bytes(),
                            pieces.data(), static_cast<MPI_Count>(len), packed_bytes(), root))
      return e;
    if (!mine_root) continue;
    for (int r = 0; r < n; ++r)
      std::memcpy(static_cast<char*>(all) + static_cast<size_t>(r) * bytes + done,
                  pieces.data() + static_cast<size_t>(r) * len, len);
  }
  return {};
}

}  // namespace ferry::coll::hier
