#!/usr/bin/env python3
"""Generates mpi.f90, the source of the `mpi` module (use mpi), from src/api/mpi_api.txt.

  gen_mpi_module.py <mpi_api.txt> <values-program> <mpi.f90>

The module holds what mpif.h holds (the constants with the values the program built by gen_mpif_h.py
prints, the sentinels in MPICH's common blocks, the predefined callbacks), plus an explicit interface
for every routine with a Fortran binding but those with choice buffers, so that the compiler checks
the arguments (MPI-4.0 §19.1.3). The routines with choice buffers (MPI_SEND, MPI_GET_ADDRESS, ...)
have none, as in MPICH's module: programs that build with MPICH's pass buffers of any rank where an
interface would want an array (a scalar as MPI_ALLTOALLV's counts, MPI_IN_PLACE for an array) and
may define such a routine themselves (a profiling layer's MPI_SEND in a unit that uses the module);
with an interface, gfortran refuses both. The arguments where a sentinel of another shape may stand
(MPI_UNWEIGHTED is a scalar), and baseptr outputs, carry gfortran's NO_ARG_CHECK attribute. For the
hand-written routines (fortran=manual) the tables below say where Fortran's arguments differ from C's.
The module has no procedures and no variables of its own, so a program needs only mpi.mod to compile
and links libmpifort as an mpif.h program does; MPI_SIZEOF, a generic of module procedures, comes
from the module mpi_sizeofs (gen_mpi_sizeofs.py), compiled into libmpifort.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_mpif_h  # noqa: E402
import mpi_api  # noqa: E402

INTEGER_KINDS = {"int": "INTEGER", "MPI_Fint": "INTEGER", "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)",
                 "MPI_Offset": "INTEGER(KIND=MPI_OFFSET_KIND)", "MPI_Count": "INTEGER(KIND=MPI_COUNT_KIND)"}
NO_CHECK = "!GCC$ ATTRIBUTES NO_ARG_CHECK :: {name}"


class Unsupported(Exception):
    pass


def declaration(p):
    """Lines declaring dummy argument p in an interface body."""
    name = p.name
    dims = ""
    if p.array:
        dims = "(3, *)" if p.ctype.endswith("[][3]") else "(*)"
    k = p.kind
    if k in ("buffer", "location") or (k == "address" and p.direction == "out"):
        # Any type and rank: the binding takes an address.
        return [NO_CHECK.format(name=name), f"TYPE(*), DIMENSION(*) :: {name}"]
    if k == "integer":
        ftype = "INTEGER" if p.fortran_int else INTEGER_KINDS.get(p.base_type)
        if ftype is None:
            raise Unsupported(f"{name}: integer of C type {p.base_type}")
        return [f"{ftype} :: {name}{dims}"]
    if k == "logical":
        return [f"LOGICAL :: {name}{dims}"]
    if k == "handle":
        return [f"INTEGER :: {name}{dims}"]
    if k == "address":
        return [f"INTEGER(KIND=MPI_ADDRESS_KIND) :: {name}"]
    if k == "string":
        return [f"CHARACTER(LEN=*) :: {name}"]
    if k == "status":
        return [f"INTEGER :: {name}(MPI_STATUS_SIZE{', *' if p.array else ''})"]
    if k == "callback":
        return [f"EXTERNAL :: {name}"]
    if k in ("weights", "errcodes"):
        # MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are scalars in mpif.h's common blocks.
        return [NO_CHECK.format(name=name), f"INTEGER, DIMENSION(*) :: {name}"]
    raise Unsupported(f"{name}: kind {k}")


# The hand-written routines (fortran=manual), whose Fortran arguments are not C's: which C parameters
# Fortran does not have, which are default INTEGERs in Fortran, and the CHARACTER arrays of spawn.
MANUAL_DROP = {"MPI_Init": {"argc", "argv"}, "MPI_Init_thread": {"argc", "argv"},
               "MPI_Info_create_env": {"argc", "argv"}, "MPI_Pcontrol": {"..."}}
MANUAL_INTEGER = {("MPI_Attr_get", "attribute_val"), ("MPI_Attr_put", "attribute_val"),
                  ("MPI_Keyval_create", "extra_state")}
MANUAL_CHARACTER_ARRAYS = {("MPI_Comm_spawn", "argv"): "(*)",
                           ("MPI_Comm_spawn_multiple", "array_of_commands"): "(*)",
                           ("MPI_Comm_spawn_multiple", "array_of_argv"): "(count, *)"}


def manual_declaration(fn, p):
    if (fn.name, p.name) in MANUAL_INTEGER:
        return [f"INTEGER :: {p.name}"]
    if (fn.name, p.name) in MANUAL_CHARACTER_ARRAYS:
        return [f"CHARACTER(LEN=*) :: {p.name}{MANUAL_CHARACTER_ARRAYS[fn.name, p.name]}"]
    if p.kind == "address" and p.direction == "out" and fn.name != "MPI_Buffer_detach":
        return [f"INTEGER(KIND=MPI_ADDRESS_KIND) :: {p.name}"]  # an attribute's value
    return declaration(p)


def interface(fn):
    params = [p for p in fn.params if p.name not in MANUAL_DROP.get(fn.name, ())]
    names = [p.name for p in params]
    lines = []
    for p in params:
        lines += manual_declaration(fn, p) if fn.fortran == "manual" else declaration(p)
    if fn.name == "MPI_Pcontrol":
        head, tail = f"SUBROUTINE MPI_PCONTROL({', '.join(names)})", "END SUBROUTINE"  # no IERROR
    elif fn.returns == "int":
        names.append("ierror")
        lines.append("INTEGER :: ierror")
        head, tail = f"SUBROUTINE {fn.name.upper()}({', '.join(names)})", "END SUBROUTINE"
    else:
        ftype = {"double": "DOUBLE PRECISION", "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)"}.get(fn.returns)
        if ftype is None:
            raise Unsupported(f"returns {fn.returns}")
        head, tail = f"FUNCTION {fn.name.upper()}({', '.join(names)})", "END FUNCTION"
        lines.append(f"{ftype} :: {fn.name.upper()}")
    body = ["IMPORT :: MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND, MPI_STATUS_SIZE", "IMPLICIT NONE"] + lines
    return [head] + ["  " + line for line in body] + [tail]


def has_choice_buffer(fn):
    """Whether fn takes a choice buffer: such routines get no interface (see the top)."""
    return any(p.kind in ("buffer", "location") for p in fn.params)


def wrap(line, indent):
    """Free-form lines of at most 132 characters, continued with &."""
    out = []
    text = " " * indent + line
    while len(text) > 130:
        cut = text.rfind(", ", 0, 128) + 1
        if cut <= indent:
            break
        out.append(text[:cut] + " &")
        text = " " * (indent + 4) + text[cut:].lstrip()
    out.append(text)
    return out


def main():
    description, program, output = sys.argv[1:4]
    try:
        functions, constants = mpi_api.load(description)
    except mpi_api.DescriptionError as e:
        sys.exit(f"gen_mpi_module: {e}")
    values = gen_mpif_h.read_values(program)
    lines = ["! mpi.f90: the mpi module (use mpi), Ferry's, with MPICH's ABI.",
             "! Generated by bindings/fortran/gen_mpi_module.py from src/api/mpi_api.txt: do not edit.",
             "module mpi", "  use :: mpi_sizeofs", "  implicit none", ""]
    for c in constants:
        v = values[c.name]
        if c.type == "logical":
            lines.append(f"  logical, parameter :: {c.name} = {'.true.' if v else '.false.'}")
        elif c.type == "integer8":
            lines.append(f"  integer(kind=8), parameter :: {c.name} = {v}_8")
        else:
            lines.append(f"  integer, parameter :: {c.name} = {v}")
    lines.append("")
    lines += ["  " + line.strip() for line in gen_mpif_h.TAIL.splitlines()
              if not line.strip().startswith(("EXTERNAL MPI_WTIME", "EXTERNAL PMPI_WTIME", "REAL*8"))]
    lines += ["  double precision, external :: PMPI_WTIME, PMPI_WTICK", "", "  interface"]
    errors = []
    count = 0
    for fn in functions:
        if not fn.has_fortran77 or has_choice_buffer(fn):
            continue
        try:
            body = interface(fn)
        except Unsupported as e:
            errors.append(f"{description}:{fn.line}: {fn.name}: {e}")
            continue
        count += 1
        for line in body:
            lines += wrap(line, 4)
        lines.append("")
    if errors:
        sys.exit("gen_mpi_module: " + "\n".join(errors))
    lines += ["  end interface", "end module mpi", ""]
    gen_mpif_h.write(output, "\n".join(lines))
    print(f"gen_mpi_module: {count} interfaces")


if __name__ == "__main__":
    main()
