// Gather up a binomial tree.
//
// Chosen for MPI_Gather at every size: ceil(log2 p) rounds, and each block
// crosses only the links between its rank and the root. A rank collects its
// subtree's blocks, packed in relative-rank order, and sends them to its
// parent as one message; leaves send their own buffer directly. The root
// receives each child's run straight into recvbuf unless the run wraps
// past rank p-1, and then unpacks it from scratch. Any p and root work.
//
// Cost = ceil(log2 p) * alpha + (p-1)/p * n * beta, n the gathered bytes.
#include "coll/binomial_tree.h"
#include "coll/gather/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void gather_binomial(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, const Datatype* recvtype, int root) {
  const int p = s.size();
  const int rank = s.rank();
  const BinomialTree tree(rank, root, p);
  auto actual = [&](int rel) { return (rel + root) % p; };

  if (tree.rel == 0) {
    // Root. Phase 1: its own block into place (already there for MPI_IN_PLACE).
    auto block = [&](int r) { return element(recvbuf, static_cast<size_t>(r) * recvcount, recvtype); };
    if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, sendcount, sendtype, block(root), recvcount, recvtype);
    // Phase 2: each child's run of blocks. Ranks first..first+n-1 are
    // consecutive in recvbuf unless they wrap past p-1.
    const size_t block_bytes = recvtype->bytes(recvcount);
    for (int m = 1; m < p; m <<= 1) {
      int first = actual(m), n = tree.run(m);
      if (first + n <= p) {
        s.recv(block(first), n * recvcount, recvtype, first);
        continue;
      }
      char* packed = static_cast<char*>(s.scratch(block_bytes * n));
      s.recv(packed, static_cast<MPI_Count>(block_bytes * n), packed_bytes(), first);
      int head = p - first;  // blocks of ranks first..p-1, then 0..
      s.copy(packed, static_cast<MPI_Count>(block_bytes * head), packed_bytes(), block(first), head * recvcount,
             recvtype);
      s.copy(packed + block_bytes * head, static_cast<MPI_Count>(block_bytes * (n - head)), packed_bytes(), block(0),
             (n - head) * recvcount, recvtype);
    }
    s.end_round();
    return;
  }

  const int parent = actual(tree.parent());
  if (tree.subtree() == 1) {
    // Leaf: its own block goes up as it is.
    s.send(sendbuf, sendcount, sendtype, parent);
    s.end_round();
    return;
  }

  // Phase 1 (inner ranks): own block first, then the children's runs, all
  // packed in relative order.
  const size_t block_bytes = sendtype->bytes(sendcount);
  char* packed = static_cast<char*>(s.scratch(block_bytes * tree.subtree()));
  s.copy(sendbuf, sendcount, sendtype, packed, static_cast<MPI_Count>(block_bytes), packed_bytes());
  for (int m = 1; m < tree.child_limit() && tree.rel + m < p; m <<= 1)
    s.recv(packed + block_bytes * m, static_cast<MPI_Count>(block_bytes * tree.run(m)), packed_bytes(),
           actual(tree.rel + m));
  s.end_round();

  // Phase 2: the whole subtree up to the parent in one message.
  s.send(packed, static_cast<MPI_Count>(block_bytes * tree.subtree()), packed_bytes(), parent);
  s.end_round();
}

}  // namespace ferry::coll
