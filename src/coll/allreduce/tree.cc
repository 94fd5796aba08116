// Allreduce by a pipelined binary tree: reduce up the tree to its root, then
// broadcast down the same tree, segment by segment.
//
// The tree is the in-order binary tree over ranks 0..p-1: the root is rank
// p/2, the left subtree holds the ranks below it and the right subtree those
// above, recursively. Every subtree is a contiguous range of ranks, so a
// node combines (left subtree) op (itself) op (right subtree) in rank order:
// non-commutative operations are safe.
//
// An alternative to the ring when p is large and n moderate: depth lg p
// instead of p, and with segments of size s the pipeline fills in lg p
// rounds and then moves one segment per round.
//
// Cost ~ 2(lg p + n/s).(alpha + 2s.beta) + 2n.gamma: two pipelines of
//        lg p + n/s rounds, each round moving one segment to or from each of
//        up to two children.
//
// Order and bits: the root computes every element once and the broadcast
// copies it, so every rank ends with identical bits. The association tree
// depends on p.
#include <algorithm>

#include "coll/allreduce/algorithms.h"
#include "coll/select.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {
namespace {

struct TreeNode {
  int parent = -1;
  int left = -1;  // child whose subtree holds the lower ranks
  int right = -1;
};

// The in-order binary tree over [0, p): descend from the root, halving the
// range, until `rank` is the middle of it.
TreeNode in_order_node(int rank, int p) {
  TreeNode n;
  int lo = 0, hi = p;
  for (;;) {
    int mid = lo + (hi - lo) / 2;
    if (rank == mid) {
      if (lo < mid) n.left = lo + (mid - lo) / 2;
      if (mid + 1 < hi) n.right = mid + 1 + (hi - mid - 1) / 2;
      return n;
    }
    n.parent = mid;
    if (rank < mid) hi = mid;
    else lo = mid + 1;
  }
}

}  // namespace

void allreduce_tree(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                    const Op* op) {
  const TreeNode node = in_order_node(s.rank(), s.size());
  const size_t n = static_cast<size_t>(count);
  const size_t per_segment =
      std::min(n, std::max<size_t>(1, pipeline_segment_bytes() / std::max<size_t>(1, type->size)));
  const size_t segments = (n + per_segment - 1) / per_segment;
  auto first = [&](size_t j) { return j * per_segment; };
  auto length = [&](size_t j) { return static_cast<MPI_Count>(std::min(per_segment, n - j * per_segment)); };
  // Children's partials. The right one is double-buffered: for a
  // non-commutative op segment t's result lives there while segment t+1
  // arrives.
  void* from_left = node.left >= 0 ? temp_buffer(s, per_segment, type) : nullptr;
  void* from_right[2] = {nullptr, nullptr};
  for (int i = 0; i < 2 && node.right >= 0; ++i) from_right[i] = temp_buffer(s, per_segment, type);
  // For a non-commutative op, (mine op right) can only be computed into the
  // right child's buffer; for a commutative one, into recvbuf.
  const bool result_in_right = node.right >= 0 && !op->commutative;
  auto result = [&](size_t j) -> void* {
    return result_in_right ? from_right[j % 2] : element(recvbuf, first(j), type);
  };

  // Phase 0: the input into recvbuf.
  copy_input(s, sendbuf, recvbuf, count, type);

  // Phase 1: reduce up the tree. In round t, segment t arrives from the
  // children and is combined, while segment t-1 goes to the parent.
  for (size_t t = 0; t <= segments; ++t) {
    if (t < segments) {
      char* mine = element(recvbuf, first(t), type);
      if (node.left >= 0) s.recv(from_left, length(t), type, node.left);
      if (node.right >= 0) s.recv(from_right[t % 2], length(t), type, node.right);
      if (node.left >= 0) s.reduce(from_left, mine, length(t), type, op);  // left op mine
      if (result_in_right) {
        s.reduce(mine, from_right[t % 2], length(t), type, op);  // (left op mine) op right
        if (node.parent < 0) s.copy(from_right[t % 2], length(t), type, mine, length(t), type);
      } else if (node.right >= 0) {
        s.reduce(from_right[t % 2], mine, length(t), type, op);  // commutative: right op (left op mine)
      }
    }
    if (t >= 1 && node.parent >= 0) s.send(result(t - 1), length(t - 1), type, node.parent);
    s.end_round();
  }

  // Phase 2: broadcast down the tree. The root sends segment t in round t;
  // every other node receives segment t and passes on segment t-1.
  for (size_t t = 0; t <= segments; ++t) {
    size_t out = node.parent < 0 ? t : t - 1;
    if (node.parent >= 0 && t < segments) s.recv(element(recvbuf, first(t), type), length(t), type, node.parent);
    if ((node.parent < 0 ? t < segments : t >= 1)) {
      if (node.left >= 0) s.send(element(recvbuf, first(out), type), length(out), type, node.left);
      if (node.right >= 0) s.send(element(recvbuf, first(out), type), length(out), type, node.right);
    }
    s.end_round();
  }
}

}  // namespace ferry::coll
