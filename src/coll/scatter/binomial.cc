// Scatter down a binomial tree (gather_binomial run backwards).
//
// Chosen for MPI_Scatter at every size: ceil(log2 p) rounds, and each block
// crosses only the links between the root and its rank. A rank receives its
// subtree's blocks, packed in relative-rank order, keeps the first and
// passes each child its run; leaves receive straight into recvbuf. The root
// sends each child's run straight from sendbuf unless the run wraps past
// rank p-1, and then packs it into scratch first. Any p and root work.
//
// Cost = ceil(log2 p) * alpha + (p-1)/p * n * beta, n the scattered bytes.
#include "coll/binomial_tree.h"
#include "coll/packed_bytes.h"
#include "coll/scatter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void scatter_binomial(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, const Datatype* recvtype, int root) {
  const int p = s.size();
  const int rank = s.rank();
  const BinomialTree tree(rank, root, p);
  auto actual = [&](int rel) { return (rel + root) % p; };

  if (tree.rel == 0) {
    auto block = [&](int r) { return element(sendbuf, static_cast<size_t>(r) * sendcount, sendtype); };
    const size_t block_bytes = sendtype->bytes(sendcount);
    // Phase 1 (root): pack the runs that wrap past rank p-1.
    struct Run {
      int first, n;
      const void* packed;
    };
    Run runs[32];
    int nruns = 0;
    for (int m = 1; m < p; m <<= 1) {
      Run r{actual(m), tree.run(m), nullptr};
      if (r.first + r.n > p) {
        char* packed = static_cast<char*>(s.scratch(block_bytes * r.n));
        int head = p - r.first;
        s.copy(block(r.first), head * sendcount, sendtype, packed, static_cast<MPI_Count>(block_bytes * head),
               packed_bytes());
        s.copy(block(0), (r.n - head) * sendcount, sendtype, packed + block_bytes * head,
               static_cast<MPI_Count>(block_bytes * (r.n - head)), packed_bytes());
        r.packed = packed;
      }
      runs[nruns++] = r;
    }
    s.end_round();
    // Phase 2: each child its run, the largest subtree first; the root's
    // own block by copy (it stays in sendbuf for MPI_IN_PLACE).
    for (int i = nruns - 1; i >= 0; --i) {
      if (runs[i].packed != nullptr)
        s.send(runs[i].packed, static_cast<MPI_Count>(block_bytes * runs[i].n), packed_bytes(), runs[i].first);
      else s.send(block(runs[i].first), runs[i].n * sendcount, sendtype, runs[i].first);
    }
    if (recvbuf != MPI_IN_PLACE) s.copy(block(root), sendcount, sendtype, recvbuf, recvcount, recvtype);
    s.end_round();
    return;
  }

  const int parent = actual(tree.parent());
  if (tree.subtree() == 1) {
    // Leaf: its block arrives where it belongs.
    s.recv(recvbuf, recvcount, recvtype, parent);
    s.end_round();
    return;
  }

  // Phase 1 (inner ranks): the subtree's blocks from the parent, packed.
  const size_t block_bytes = recvtype->bytes(recvcount);
  char* packed = static_cast<char*>(s.scratch(block_bytes * tree.subtree()));
  s.recv(packed, static_cast<MPI_Count>(block_bytes * tree.subtree()), packed_bytes(), parent);
  s.end_round();

  // Phase 2: pass each child its run, largest first, and keep the first block.
  // (The children of an inner rank are rel + m for m = lowbit(rel)/2 ... 1.)
  for (int m = tree.child_limit() / 2; m >= 1; m >>= 1)
    if (tree.rel + m < p)
      s.send(packed + block_bytes * m, static_cast<MPI_Count>(block_bytes * tree.run(m)), packed_bytes(),
             actual(tree.rel + m));
  s.copy(packed, static_cast<MPI_Count>(block_bytes), packed_bytes(), recvbuf, recvcount, recvtype);
  s.end_round();
}

}  // namespace ferry::coll
