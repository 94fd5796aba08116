// Alltoall by Bruck's algorithm (Bruck et al. 1997).
//
// Chosen for tiny blocks on larger communicators, where latency rules:
// ceil(log2 p) steps instead of p-1, at the price of sending each block
// about log2(p)/2 times and of packing. Works on packed scratch:
//   Phase 1: rotate: slot i holds the block for rank + i.
//   Phase 2: for each bit d = 1, 2, 4... < p, send the slots whose index has
//            bit d set to rank + d, and receive the same slots from
//            rank - d. A block moves by the sum of its slot's bits, i.e. to
//            its destination; slot i then holds the block from rank - i.
//   Phase 3: unrotate into recvbuf.
// Any p works.
//
// Cost = ceil(log2 p) * alpha + ceil(log2 p) * n/2 * beta, n the bytes one
// rank sends, plus about 2n bytes copied.
#include "coll/alltoall/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void alltoall_bruck(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    MPI_Count recvcount, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  const size_t block_bytes = recvtype->bytes(recvcount);
  const MPI_Count block_int = static_cast<MPI_Count>(block_bytes);
  char* slots = static_cast<char*>(s.scratch(block_bytes * p));
  char* outgoing = static_cast<char*>(s.scratch(block_bytes * (p / 2 + 1)));
  char* incoming = static_cast<char*>(s.scratch(block_bytes * (p / 2 + 1)));
  auto slot = [&](int i) { return slots + block_bytes * i; };

  // Phase 1: slot i = the block for rank + i (from recvbuf for MPI_IN_PLACE).
  const void* from = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const MPI_Count count = sendbuf == MPI_IN_PLACE ? recvcount : sendcount;
  const Datatype* type = sendbuf == MPI_IN_PLACE ? recvtype : sendtype;
  const int head = p - rank;  // blocks rank..p-1, then 0..rank-1
  s.copy(element(from, static_cast<size_t>(rank) * count, type), head * count, type, slot(0),
         static_cast<MPI_Count>(block_bytes * head), packed_bytes());
  if (rank > 0)
    s.copy(from, rank * count, type, slot(head), static_cast<MPI_Count>(block_bytes * rank), packed_bytes());

  // Phase 2: one step per bit; the slots to send are packed at the end of
  // the previous round (after its send has completed).
  auto pack = [&](int d) {
    int n = 0;
    for (int i = 1; i < p; ++i)
      if (i & d) s.copy(slot(i), block_int, packed_bytes(), outgoing + block_bytes * n++, block_int, packed_bytes());
    return n;
  };
  int n = pack(1);
  s.end_round();
  for (int d = 1; d < p; d <<= 1) {
    s.recv(incoming, static_cast<MPI_Count>(block_bytes * n), packed_bytes(), (rank - d + p) % p);
    s.send(outgoing, static_cast<MPI_Count>(block_bytes * n), packed_bytes(), (rank + d) % p);
    int k = 0;
    for (int i = 1; i < p; ++i)
      if (i & d) s.copy(incoming + block_bytes * k++, block_int, packed_bytes(), slot(i), block_int, packed_bytes());
    if (d * 2 < p) n = pack(d * 2);
    s.end_round();
  }

  // Phase 3: slot i holds the block from rank - i.
  for (int i = 0; i < p; ++i)
    s.copy(slot(i), block_int, packed_bytes(), element(recvbuf, static_cast<size_t>((rank - i + p) % p) * recvcount,
                                                       recvtype),
           recvcount, recvtype);
  s.end_round();
}

}  // namespace ferry::coll
