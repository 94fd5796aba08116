#include "base/type_layout.h"

#include <utility>

namespace ferry::type {

uint64_t Layout::runs() const {
  // Runs of a node: a leaf has one per body, a branch its children's per body.
  std::vector<uint64_t> per_node(nodes.size(), 0);
  for (size_t i = nodes.size(); i-- > 0;) {
    const Node& n = nodes[i];
    uint64_t body = 0;
    if (n.children == 0) body = n.size > 0 ? 1 : 0;
    for (uint32_t c = 0; c < n.children; ++c) body += per_node[n.first_child + c];
    for (uint32_t d = 0; d < n.dims; ++d) body *= n.dim[d].count;
    per_node[i] = body;
  }
  return per_node.empty() ? 0 : per_node[0];
}

uint64_t Tree::body_size() const {
  if (leaf()) return run;
  uint64_t bytes = 0;
  for (const Tree& c : children) bytes += c.total();
  return bytes;
}

uint64_t Tree::total() const {
  uint64_t bytes = body_size();
  for (const Dim& d : dims) bytes *= d.count;
  return bytes;
}

Tree run(uint64_t bytes) {
  Tree t;
  t.run = bytes;
  return t;
}

Tree repeat(Tree body, uint64_t count, MPI_Aint stride, MPI_Aint offset) {
  Tree t = std::move(body);
  // The new loop is outside the body's own loops; the body's offset is
  // relative to each iteration's origin, which is the same thing as moving
  // the whole nest.
  t.dims.insert(t.dims.begin(), Dim{count, stride});
  t.offset += offset;
  return t;
}

Tree shift(Tree body, MPI_Aint offset) {
  body.offset += offset;
  return body;
}

Tree sequence(std::vector<Tree> parts) {
  Tree t;
  t.children = std::move(parts);
  if (t.children.empty()) t.run = 0;
  return t;
}

namespace {

bool empty(const Tree& t) { return t.total() == 0; }

// Loops of count 1 do nothing; a loop of count 0 empties the node.
void drop_trivial_dims(Tree& t) {
  std::vector<Dim> kept;
  for (const Dim& d : t.dims) {
    if (d.count == 0) {
      t = Tree{};
      return;
    }
    if (d.count != 1) kept.push_back(d);
  }
  t.dims = std::move(kept);
}

// Two loops where the outer one steps over exactly the inner one's span are
// one loop; a leaf's innermost loop that steps by its run extends the run.
void fold_dims(Tree& t) {
  bool changed = true;
  while (changed) {
    changed = false;
    if (t.leaf() && !t.dims.empty() && t.run > 0 && t.dims.back().stride == static_cast<MPI_Aint>(t.run)) {
      t.run *= t.dims.back().count;
      t.dims.pop_back();
      changed = true;
      continue;
    }
    for (size_t i = 0; i + 1 < t.dims.size(); ++i) {
      Dim& outer = t.dims[i];
      const Dim& inner = t.dims[i + 1];
      if (outer.stride == static_cast<MPI_Aint>(inner.count) * inner.stride) {
        outer = Dim{outer.count * inner.count, inner.stride};
        t.dims.erase(t.dims.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        changed = true;
        break;
      }
    }
  }
}

// A plain run (a leaf without loops).
bool plain_run(const Tree& t) { return t.leaf() && t.dims.empty(); }

// Children that are runs one right after the other become one run.
void merge_adjacent_runs(std::vector<Tree>& children) {
  std::vector<Tree> merged;
  for (Tree& c : children) {
    if (!merged.empty() && plain_run(merged.back()) && plain_run(c) &&
        merged.back().offset + static_cast<MPI_Aint>(merged.back().run) == c.offset) {
      merged.back().run += c.run;
      continue;
    }
    merged.push_back(std::move(c));
  }
  children = std::move(merged);
}

bool same_shape(const Tree& a, const Tree& b) { return a.leaf() && b.leaf() && a.run == b.run && a.dims == b.dims; }

// Two or more leaves of one shape at evenly spaced offsets are one leaf
// with an extra loop (an indexed type with a regular pattern is a vector).
void fold_regular_children(std::vector<Tree>& children) {
  std::vector<Tree> folded;
  size_t i = 0;
  while (i < children.size()) {
    size_t j = i + 1;
    if (j < children.size() && same_shape(children[i], children[j])) {
      MPI_Aint step = children[j].offset - children[i].offset;
      while (j + 1 < children.size() && same_shape(children[i], children[j + 1]) &&
             children[j + 1].offset - children[j].offset == step)
        ++j;
      if (j - i + 1 >= 2) {
        folded.push_back(repeat(std::move(children[i]), j - i + 1, step));
        fold_dims(folded.back());
        i = j + 1;
        continue;
      }
    }
    folded.push_back(std::move(children[i]));
    ++i;
  }
  children = std::move(folded);
}

}  // namespace

void simplify(Tree& t) {
  drop_trivial_dims(t);
  if (!t.leaf()) {
    std::vector<Tree> kept;
    for (Tree& c : t.children) {
      simplify(c);
      if (empty(c)) continue;
      // A child that is itself a loop-free sequence is spliced in.
      if (!c.leaf() && c.dims.empty()) {
        for (Tree& g : c.children) kept.push_back(shift(std::move(g), c.offset));
        continue;
      }
      kept.push_back(std::move(c));
    }
    merge_adjacent_runs(kept);
    fold_regular_children(kept);
    merge_adjacent_runs(kept);
    t.children = std::move(kept);
    if (t.children.empty()) {
      t = Tree{};
      return;
    }
    if (t.children.size() == 1) {
      // One child: its loops nest inside ours.
      Tree c = std::move(t.children[0]);
      c.offset += t.offset;
      c.dims.insert(c.dims.begin(), t.dims.begin(), t.dims.end());
      t = std::move(c);
    }
  }
  if (t.leaf() && t.run == 0) {
    t = Tree{};
    return;
  }
  fold_dims(t);
}

namespace {

struct Flattener {
  Layout& layout;

  // Writes `t` at nodes[index]; its children go at the end of the array.
  void place(const Tree& t, size_t index, uint64_t start) {
    size_t extra = t.dims.size() > kMaxDims ? t.dims.size() - kMaxDims : 0;
    if (extra > 0) {
      // Too many loops for one node: the outer ones go in a parent whose
      // single child holds the rest.
      Node outer;
      outer.offset = t.offset;
      outer.start = start;
      outer.dims = static_cast<uint32_t>(std::min<size_t>(extra, kMaxDims));
      Tree inner = t;
      inner.offset = 0;
      inner.dims.erase(inner.dims.begin(), inner.dims.begin() + outer.dims);
      for (uint32_t d = 0; d < outer.dims; ++d) outer.dim[d] = t.dims[d];
      outer.size = inner.total();
      outer.total = t.total();
      outer.first_child = static_cast<uint32_t>(layout.nodes.size());
      outer.children = 1;
      layout.nodes[index] = outer;
      layout.nodes.emplace_back();
      place(inner, outer.first_child, 0);
      return;
    }
    Node n;
    n.offset = t.offset;
    n.start = start;
    n.dims = static_cast<uint32_t>(t.dims.size());
    for (uint32_t d = 0; d < n.dims; ++d) n.dim[d] = t.dims[d];
    n.size = t.body_size();
    n.total = t.total();
    if (!t.leaf()) {
      n.first_child = static_cast<uint32_t>(layout.nodes.size());
      n.children = static_cast<uint32_t>(t.children.size());
    }
    layout.nodes[index] = n;
    if (t.leaf()) return;
    layout.nodes.resize(layout.nodes.size() + t.children.size());
    uint64_t child_start = 0;
    for (size_t c = 0; c < t.children.size(); ++c) {
      place(t.children[c], n.first_child + c, child_start);
      child_start += t.children[c].total();
    }
  }
};

Tree tree_at(const Layout& layout, const Node& n) {
  Tree t;
  t.offset = n.offset;
  t.dims.assign(n.dim, n.dim + n.dims);
  if (n.children == 0) {
    t.run = n.size;
    return t;
  }
  for (uint32_t c = 0; c < n.children; ++c) t.children.push_back(tree_at(layout, layout.nodes[n.first_child + c]));
  return t;
}

}  // namespace

Layout flatten(Tree t) {
  simplify(t);
  Layout layout;
  layout.nodes.emplace_back();
  Flattener{layout}.place(t, 0, 0);
  return layout;
}

Tree tree_of(const Layout& layout) { return tree_at(layout, layout.root()); }

}  // namespace ferry::type
