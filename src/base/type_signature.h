// A datatype's signature: its basic elements in type-map order, without
// their displacements (MPI-3.1 §4.1.1), run-length compressed.
//
// It answers what the layout cannot, because the layout merges runs: how
// many basic elements lie in a number of bytes (MPI_Get_elements, which
// counts whole basic elements of a partly filled datatype, §4.1.11), and
// whether a type holds a single basic type (for reductions).
//
// A signature is `count` repetitions of a body; the body is one basic
// element (a leaf) or a sequence of parts. vector(1000, 2, 3, MPI_INT) is
// the leaf MPI_INT x 2000; a struct {int, double} repeated 10 times is
// 10 x (MPI_INT x 1, MPI_DOUBLE x 1).
#pragma once

#include <cstdint>
#include <vector>

#include "mpi.h"

namespace ferry::type {

struct Signature {
  uint64_t count = 0;                      // 0: no elements at all
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // a leaf's basic type
  uint64_t basic_size = 0;
  std::vector<Signature> parts;            // a branch's body
  uint64_t body_bytes = 0;                 // cached: bytes and elements of one body
  uint64_t body_elements = 0;

  uint64_t bytes() const { return count * body_bytes; }
  uint64_t elements() const { return count * body_elements; }
  // Whole basic elements in the first `bytes` bytes (at most bytes()).
  uint64_t elements_in(uint64_t bytes) const;
  // The one basic type of every element, or MPI_DATATYPE_NULL if mixed or empty.
  MPI_Datatype single_basic() const;
};

// `count` elements of one basic type of `size` bytes.
Signature basic_elements(MPI_Datatype basic, uint64_t size, uint64_t count = 1);
// `count` repetitions.
Signature repeat(Signature s, uint64_t count);
// The parts in order; adjacent runs of one basic type merge.
Signature sequence(std::vector<Signature> parts);

}  // namespace ferry::type
