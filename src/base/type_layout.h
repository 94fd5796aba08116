// Where a datatype's data lies: its compact representation as nested loops
// over contiguous runs (the datatype engine's "layout").
//
// A layout describes one element of a datatype as a tree of nodes. Each node
// is a nest of loops (`dims`, outermost first) around a body; the body is
// either one contiguous run of `size` bytes (a leaf) or the sequence of the
// node's children in type-map order (a branch). Adjacent runs are merged and
// loops that step by exactly their body's span are folded, so a vector of
// doubles is one leaf with one loop, a contiguous block of anything is one
// run, and a struct of a double and an int at offset 8 is one 12-byte run.
//
//   vector(3, 2, 4, MPI_INT)   ->  leaf: run 8 bytes, loop (3 x stride 16)
//   struct{int@0, char@8} x 1  ->  branch: leaf run 4 @0, leaf run 1 @8
//
// Layouts are built once, when a datatype is created, from a Tree (a mutable
// form that the constructors compose), then flattened into an array of nodes
// whose children are contiguous, which is what pack and unpack walk
// (base/type_pack.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi.h"

namespace ferry::type {

// Loops folded into one node; deeper nests are split over several nodes.
constexpr uint32_t kMaxDims = 3;

struct Dim {
  uint64_t count;
  MPI_Aint stride;  // bytes between consecutive bodies (may be zero or negative)
  bool operator==(const Dim&) const = default;
};

struct Node {
  MPI_Aint offset = 0;       // from the parent body's origin to this node's first body
  uint64_t size = 0;         // data bytes of one body (a leaf: the run)
  uint64_t total = 0;        // data bytes of the whole node: size x every loop count
  uint64_t start = 0;        // where this node's data starts in its parent body's packed bytes
  uint32_t dims = 0;
  Dim dim[kMaxDims] = {};    // outermost first
  uint32_t first_child = 0;  // a branch's children are nodes[first_child, first_child + children)
  uint32_t children = 0;     // 0: a leaf
};

struct Layout {
  // nodes[0] is one element of the datatype (an empty layout has a leaf of size 0).
  std::vector<Node> nodes;

  const Node& root() const { return nodes[0]; }
  // The number of contiguous runs in one element (for diagnostics and tests).
  uint64_t runs() const;
  // One element is a single run at `root().offset`.
  bool single_run() const { return nodes[0].children == 0 && nodes[0].dims == 0; }
};

// The mutable form the datatype constructors compose.
struct Tree {
  MPI_Aint offset = 0;
  std::vector<Dim> dims;        // outermost first, any depth
  uint64_t run = 0;             // a leaf's run
  std::vector<Tree> children;   // non-empty: a branch

  bool leaf() const { return children.empty(); }
  uint64_t body_size() const;
  uint64_t total() const;
};

// A contiguous run of `bytes` at offset 0.
Tree run(uint64_t bytes);
// `count` copies of `body` at `stride` bytes from each other, starting at `offset`.
Tree repeat(Tree body, uint64_t count, MPI_Aint stride, MPI_Aint offset = 0);
// `body` moved by `offset` bytes.
Tree shift(Tree body, MPI_Aint offset);
// The parts one after another in type-map order (their offsets are kept).
Tree sequence(std::vector<Tree> parts);

// Merges adjacent runs, folds loops and drops empty parts; the data and its
// order are unchanged.
void simplify(Tree& t);
// The layout of a tree (simplified first) and back.
Layout flatten(Tree t);
Tree tree_of(const Layout& layout);

}  // namespace ferry::type
