#!/usr/bin/env python3
"""Generates the mpi_f08 module (use mpi_f08) and its bindings from src/api/mpi_api.txt.

  gen_f08.py <mpi_api.txt> <values-program> <mpi_f08.f90> <f08_bindings.f90> <f08_aliases.ld>

mpi_f08.f90 holds the modules a program uses, named as MPICH names them so that gfortran gives their
procedures and variables MPICH's symbols (a program built with MPICH's mpifort refers to some):
  mpi_f08_types              MPI_Comm, MPI_Datatype, ... (one INTEGER, MPI_VAL, each: the handle of
                             mpif.h) and MPI_Status (the C struct's five integers), ==/= on handles,
                             MPI_Status_f2f08/f082f, MPI_SIZEOF
  mpi_f08_compile_constants  the constants, with the values gen_mpif_h.py's program prints, the
                             predefined handles as PARAMETERs of the handle types
  mpi_f08_link_constants     the sentinels: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE (C
                             objects under MPICH's names), MPI_ERRCODES_IGNORE, MPI_ARGV(S)_NULL,
                             MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (module variables)
  mpi_f08_callbacks          the predefined attribute callbacks (MPI_COMM_DUP_FN, ...)
  mpi_f08                    all of the above and one generic interface per routine, whose specific
                             procedures are MPICH's binding names: MPI_Send_f08ts (a choice buffer,
                             TYPE(*), DIMENSION(..) of TS 29113), MPI_Comm_rank_f08, and for the
                             MPI-4.0 large-count forms MPI_Send_f08ts_large
f08_bindings.f90 defines those procedures as external subroutines under their profiling names
(PMPIR_Send_f08ts, gfortran's pmpir_send_f08ts_); f08_aliases.ld gives each its MPI_ name
(mpi_send_f08ts_) at link time. A binding converts only what mpif.h's binding cannot take as it is:
a choice buffer becomes its address (ferry_f08_address, f08_buffer.c: TS 29113's descriptor, the
sentinels) and the optional IERROR a local one. Handles, statuses, strings (with their hidden
lengths), LOGICALs and callbacks go as they are to the C binding of mpif.h (gen_f77.py's pmpi_x_,
or for the large-count forms ferry_f08_x_), which converts them as for mpif.h: one conversion, two
surfaces.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_f77  # noqa: E402
import gen_mpif_h  # noqa: E402
import mpi_api  # noqa: E402

HANDLE_TYPES = {"comm": "MPI_Comm", "datatype": "MPI_Datatype", "group": "MPI_Group", "request": "MPI_Request",
                "op": "MPI_Op", "info": "MPI_Info", "errhandler": "MPI_Errhandler", "win": "MPI_Win",
                "file": "MPI_File", "message": "MPI_Message", "session": "MPI_Session"}
INTEGER_KINDS = {"int": "INTEGER", "MPI_Fint": "INTEGER", "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)",
                 "MPI_Offset": "INTEGER(KIND=MPI_OFFSET_KIND)", "MPI_Count": "INTEGER(KIND=MPI_COUNT_KIND)"}

# The predefined handles among the description's constants (MPI-4.0 A.1.1), by their type in mpi_f08.
HANDLE_CONSTANTS = {
    "MPI_Comm": "MPI_COMM_WORLD MPI_COMM_SELF MPI_COMM_NULL",
    "MPI_Group": "MPI_GROUP_EMPTY MPI_GROUP_NULL",
    "MPI_Win": "MPI_WIN_NULL",
    "MPI_File": "MPI_FILE_NULL",
    "MPI_Request": "MPI_REQUEST_NULL",
    "MPI_Message": "MPI_MESSAGE_NULL MPI_MESSAGE_NO_PROC",
    "MPI_Info": "MPI_INFO_NULL MPI_INFO_ENV",
    "MPI_Errhandler": "MPI_ERRHANDLER_NULL MPI_ERRORS_ARE_FATAL MPI_ERRORS_RETURN MPI_ERRORS_ABORT",
    "MPI_Op": "MPI_MAX MPI_MIN MPI_SUM MPI_PROD MPI_LAND MPI_BAND MPI_LOR MPI_BOR MPI_LXOR MPI_BXOR "
              "MPI_MINLOC MPI_MAXLOC MPI_REPLACE MPI_NO_OP MPI_OP_NULL",
    "MPI_Datatype": "MPI_DATATYPE_NULL MPI_COMPLEX MPI_DOUBLE_COMPLEX MPI_LOGICAL MPI_REAL "
                    "MPI_DOUBLE_PRECISION MPI_INTEGER MPI_2INTEGER MPI_2DOUBLE_PRECISION MPI_2REAL "
                    "MPI_CHARACTER MPI_BYTE MPI_UB MPI_LB MPI_PACKED MPI_INTEGER1 MPI_INTEGER2 MPI_INTEGER4 "
                    "MPI_INTEGER8 MPI_INTEGER16 MPI_REAL4 MPI_REAL8 MPI_REAL16 MPI_COMPLEX8 MPI_COMPLEX16 "
                    "MPI_COMPLEX32 MPI_CHAR MPI_SIGNED_CHAR MPI_UNSIGNED_CHAR MPI_WCHAR MPI_SHORT "
                    "MPI_UNSIGNED_SHORT MPI_INT MPI_UNSIGNED MPI_LONG MPI_UNSIGNED_LONG MPI_FLOAT MPI_DOUBLE "
                    "MPI_LONG_DOUBLE MPI_LONG_LONG_INT MPI_UNSIGNED_LONG_LONG MPI_LONG_LONG MPI_FLOAT_INT "
                    "MPI_DOUBLE_INT MPI_LONG_INT MPI_SHORT_INT MPI_2INT MPI_LONG_DOUBLE_INT MPI_INT8_T "
                    "MPI_INT16_T MPI_INT32_T MPI_INT64_T MPI_UINT8_T MPI_UINT16_T MPI_UINT32_T MPI_UINT64_T "
                    "MPI_C_BOOL MPI_C_FLOAT_COMPLEX MPI_C_COMPLEX MPI_C_DOUBLE_COMPLEX "
                    "MPI_C_LONG_DOUBLE_COMPLEX MPI_AINT MPI_OFFSET MPI_COUNT MPI_CXX_BOOL "
                    "MPI_CXX_FLOAT_COMPLEX MPI_CXX_DOUBLE_COMPLEX MPI_CXX_LONG_DOUBLE_COMPLEX",
}
HANDLE_OF = {name: t for t, names in HANDLE_CONSTANTS.items() for name in names.split()}

# Routines mpi_f08 does not have (MPI-4.0 §19.1.2: the deprecated MPI-1 forms that MPI-3.0 removed or
# kept for mpif.h and the mpi module only; MPICH's mpi_f08 has none of them).
NOT_IN_F08 = {"MPI_Attr_get", "MPI_Attr_put", "MPI_Attr_delete", "MPI_Keyval_create", "MPI_Keyval_free",
              "MPI_Address", "MPI_Errhandler_create", "MPI_Errhandler_get", "MPI_Errhandler_set",
              "MPI_Type_extent", "MPI_Type_hindexed", "MPI_Type_hvector", "MPI_Type_lb", "MPI_Type_struct",
              "MPI_Type_ub"}

# Hand-written in bindings/fortran/f08_manual.f90 (their Fortran arguments are not mpif.h's).
F08_MANUAL = {"MPI_Buffer_detach", "MPI_Buffer_detach_c", "MPI_Pcontrol"}

# Their interfaces, where gen_f08.py cannot write them from the description: MPI_Pcontrol has no
# IERROR (MPI-4.0 §15.2.5), MPI_F_sync_reg no C counterpart (§19.1.8).
MANUAL_INTERFACES = {
    "MPI_Pcontrol": ["SUBROUTINE MPI_Pcontrol_f08(level)", "  INTEGER, INTENT(IN) :: level", "END SUBROUTINE"],
    "MPI_F_sync_reg": ["SUBROUTINE MPI_F_sync_reg_f08ts(buf)", "  TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf",
                       "END SUBROUTINE"],
}

# The large-count file routines: MPICH 4.0's mpi_f08 has none, and libmpifort exports no name MPICH's
# library does not (tests/abi: abi_fortran_exports_every_mpichfort_symbol); the default forms serve.
def large_file_routine(fn):
    return fn.fortran == "f08" and fn.name.startswith("MPI_File_")

# Parameters of the hand-written (fortran=manual) routines that Fortran does not have, and the
# CHARACTER arrays of spawn (as in gen_mpi_module.py).
DROP = {"MPI_Init": {"argc", "argv"}, "MPI_Init_thread": {"argc", "argv"},
        "MPI_Info_create_env": {"argc", "argv"}}
CHARACTER_ARRAYS = {("MPI_Comm_spawn", "argv"): "(*)",
                    ("MPI_Comm_spawn_multiple", "array_of_commands"): "(*)",
                    ("MPI_Comm_spawn_multiple", "array_of_argv"): "(count, *)"}
# Outputs that are C pointers in mpi_f08 (MPI-4.0: TYPE(C_PTR) baseptr).
C_POINTERS = {"baseptr", "buffer_addr"}


class Unsupported(Exception):
    pass


# Large-count forms that keep their _c in mpi_f08 (MPI-4.0 §19.2): they differ from the default form
# only in the interface of a procedure argument, which a generic cannot tell apart (Fortran 2008
# 12.4.3.4.5): MPI_Op_create_c is a generic of its own, whose specific is MPI_Op_create_c_f08.
OWN_GENERIC = {"MPI_Op_create_c", "MPI_Register_datarep_c"}


def base_name(fn):
    """('send', large, mpix) for MPI_Send_c."""
    name = fn.name
    mpix = name.startswith("MPIX_")
    rest = name[5:] if mpix else name[4:]
    large = rest.endswith("_c") and fn.fortran == "f08" and name not in OWN_GENERIC
    if large:
        rest = rest[:-2]
    return rest, large, mpix


def has_choice(fn):
    return any(p.kind in ("buffer", "location") for p in fn.params)


def specific_name(fn, profiling=False):
    """MPICH's name of fn's mpi_f08 procedure: MPI_Send_f08ts, MPI_Send_f08ts_large, PMPIR_Send_f08ts."""
    rest, large, mpix = base_name(fn)
    prefix = ("PMPIXR_" if mpix else "PMPIR_") if profiling else ("MPIX_" if mpix else "MPI_")
    return f"{prefix}{rest}_f08{'ts' if has_choice(fn) else ''}{'_large' if large else ''}"


def generic_name(fn):
    rest, _, mpix = base_name(fn)
    return f"{'MPIX_' if mpix else 'MPI_'}{rest}"


def c_binding(fn):
    """The C binding an f08 procedure calls: mpif.h's pmpi_x_, or for the large-count forms (which
    mpif.h does not have) gen_f77.py's ferry_f08_x_ (a Fortran name without the underscore)."""
    if fn.fortran == "f08" or fn.name in OWN_C_BINDINGS:
        return "ferry_f08_" + fn.name[4:].lower()
    return "p" + fn.name.lower()


# mpi_f08 routines whose C binding differs from mpif.h's (spawn.c: arguments keep leading blanks).
OWN_C_BINDINGS = {"MPI_Comm_spawn", "MPI_Comm_spawn_multiple"}


def params_of(fn):
    return [p for p in fn.params if p.name not in DROP.get(fn.name, ())]


def dummy(fn, p):
    """The declaration of p in mpi_f08 (MPI-4.0 §19.1.2 and Annex A.3)."""
    name = p.name
    dims = ""
    if p.array:
        dims = "(3, *)" if p.ctype.endswith("[][3]") else "(*)"
    intent = {"in": ", INTENT(IN)", "out": ", INTENT(OUT)", "inout": ""}[p.direction]
    k = p.kind
    if k in ("buffer", "location"):
        # ASYNCHRONOUS on every buffer: the nonblocking, persistent and RMA ones need it, and it
        # changes nothing in how the argument is passed.
        return f"TYPE(*), DIMENSION(..){', INTENT(IN)' if p.direction == 'in' else ''}, ASYNCHRONOUS :: {name}"
    if k == "integer":
        ftype = "INTEGER" if p.fortran_int else INTEGER_KINDS.get(p.base_type)
        if ftype is None:
            raise Unsupported(f"{name}: integer of C type {p.base_type}")
        return f"{ftype}{intent} :: {name}{dims}"
    if k == "logical":
        return f"LOGICAL{intent} :: {name}{dims}"
    if k == "handle":
        if p.handle not in HANDLE_TYPES:
            raise Unsupported(f"{name}: handle {p.handle} has no Fortran form")
        return f"TYPE({HANDLE_TYPES[p.handle]}){intent} :: {name}{dims}"
    if k == "address":
        if p.direction == "out" and name in C_POINTERS:
            return f"TYPE(C_PTR), INTENT(OUT) :: {name}"
        return f"INTEGER(KIND=MPI_ADDRESS_KIND){intent} :: {name}"
    if k == "string":
        return f"CHARACTER(LEN=*){intent} :: {name}"
    if k == "status":
        return f"TYPE(MPI_Status){intent if p.direction != 'out' else ''} :: {name}{dims}"
    if k == "callback":
        return f"EXTERNAL :: {name}"
    if k in ("weights", "errcodes"):
        return f"INTEGER{intent} :: {name}(*)"
    if k == "argv" and (fn.name, name) in CHARACTER_ARRAYS:
        return f"CHARACTER(LEN=*), INTENT(IN) :: {name}{CHARACTER_ARRAYS[fn.name, name]}"
    raise Unsupported(f"{name}: kind {k}")


def procedure(fn, body):
    """The interface (body=False) or the definition (body=True) of fn's f08 procedure."""
    params = params_of(fn)
    decls = [dummy(fn, p) for p in params]
    names = [p.name for p in params]
    name = specific_name(fn, profiling=body)
    uses = ["USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR, C_INTPTR_T, C_INT",
            "USE :: mpi_f08_types",
            "USE :: mpi_f08_compile_constants, ONLY : MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND"]
    if fn.returns == "int":
        head, tail = f"SUBROUTINE {name}({', '.join(names + ['ierror'])})", "END SUBROUTINE"
        decls.append("INTEGER, OPTIONAL, INTENT(OUT) :: ierror")
    else:
        ftype = {"double": "DOUBLE PRECISION", "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)"}.get(fn.returns)
        if ftype is None:
            raise Unsupported(f"returns {fn.returns}")
        head, tail = f"FUNCTION {name}({', '.join(names)}) RESULT(res)", "END FUNCTION"
        decls.append(f"{ftype} :: res")
    lines = [head] + ["  " + u for u in uses] + ["  IMPLICIT NONE"] + ["  " + d for d in decls]
    if body:
        lines += ["  " + s for s in call(fn, params)]
    return lines + [tail]


def described_buffer(params, i):
    """(count, datatype) when the buffer params[i] is followed by its own scalar count and datatype
    (buf, count, datatype: point-to-point, one-sided, file, the rooted collectives' send and receive
    sides), else None: such a buffer may be a noncontiguous array section, since its layout can go
    into the datatype (f08_buffer.c). Not when a buffer comes just before it (a reduction's sendbuf,
    recvbuf, count, datatype): the two share the count and datatype, so neither can be described."""
    if i > 0 and params[i - 1].kind == "buffer":
        return None
    rest = params[i + 1:i + 3]
    if (len(rest) == 2 and rest[0].kind == "integer" and not rest[0].array and rest[0].direction == "in"
            and rest[1].kind == "handle" and rest[1].handle == "datatype" and not rest[1].array):
        return rest[0], rest[1]
    return None


# Blocking calls that are done with their buffers when they return: a noncontiguous section that no
# datatype can describe (the v/w collectives' buffers, a reduction's, MPI_Pack's packed buffer) is
# copied into a contiguous one for the call and back after it (f08_buffer.c), which is what MPI-4.0
# §19.1.12 asks ("as if" the section were contiguous). Nonblocking and persistent calls, one-sided
# calls and attached buffers outlive the call: a section there is MPI_ERR_BUFFER.
COPIED_SECTIONS = {
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Allreduce", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw",
    "MPI_Bcast", "MPI_Exscan", "MPI_Gather", "MPI_Gatherv", "MPI_Reduce", "MPI_Reduce_local",
    "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Scatter", "MPI_Scatterv",
    "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw", "MPI_Pack", "MPI_Unpack", "MPI_Pack_external", "MPI_Unpack_external",
}


def copies_sections(fn):
    return fn.name.removesuffix("_c") in COPIED_SECTIONS


ADDRESS_INTERFACES = [
    "INTERFACE",
    "  FUNCTION ferry_f08_copy_in(buffer, copy, ierr) BIND(C, NAME='ferry_f08_copy_in') RESULT(address)",
    "    IMPORT :: C_INTPTR_T, C_INT",
    "    TYPE(*), DIMENSION(..) :: buffer",
    "    INTEGER(C_INTPTR_T) :: copy",
    "    INTEGER(C_INT) :: ierr",
    "    INTEGER(C_INTPTR_T) :: address",
    "  END FUNCTION",
    "  SUBROUTINE ferry_f08_copy_out(buffer, copy, back) BIND(C, NAME='ferry_f08_copy_out')",
    "    IMPORT :: C_INTPTR_T, C_INT",
    "    TYPE(*), DIMENSION(..) :: buffer",
    "    INTEGER(C_INTPTR_T) :: copy",
    "    INTEGER(C_INT), VALUE :: back",
    "  END SUBROUTINE",
    "  FUNCTION ferry_f08_address(buffer, ierr) BIND(C, NAME='ferry_f08_address') RESULT(address)",
    "    IMPORT :: C_INTPTR_T, C_INT",
    "    TYPE(*), DIMENSION(..) :: buffer",
    "    INTEGER(C_INT) :: ierr",
    "    INTEGER(C_INTPTR_T) :: address",
    "  END FUNCTION",
    "  FUNCTION ferry_f08_buffer(buffer, count, datatype, new_count, new_datatype, ierr) &",
    "      BIND(C, NAME='ferry_f08_buffer') RESULT(address)",
    "    IMPORT :: C_INTPTR_T, C_INT",
    "    TYPE(*), DIMENSION(..) :: buffer",
    "    INTEGER(C_INT) :: count, datatype, new_count, new_datatype, ierr",
    "    INTEGER(C_INTPTR_T) :: address",
    "  END FUNCTION",
    "  FUNCTION ferry_f08_buffer_c(buffer, count, datatype, new_count, new_datatype, ierr) &",
    "      BIND(C, NAME='ferry_f08_buffer_c') RESULT(address)",
    "    IMPORT :: C_INTPTR_T, C_INT, MPI_COUNT_KIND",
    "    TYPE(*), DIMENSION(..) :: buffer",
    "    INTEGER(KIND=MPI_COUNT_KIND) :: count, new_count",
    "    INTEGER(C_INT) :: datatype, new_datatype, ierr",
    "    INTEGER(C_INTPTR_T) :: address",
    "  END FUNCTION",
    "  SUBROUTINE ferry_f08_buffer_end(datatype, new_datatype) BIND(C, NAME='ferry_f08_buffer_end')",
    "    IMPORT :: C_INT",
    "    INTEGER(C_INT) :: datatype, new_datatype",
    "  END SUBROUTINE",
    "END INTERFACE"]


def call(fn, params):
    """The statements of a binding: the buffers' addresses (and, for a noncontiguous section with
    its own count and datatype, those that describe it), the C binding, IERROR."""
    binding = c_binding(fn)
    pre, args, post, decls = [], [], [], []
    replaced = {}
    for i, p in enumerate(params):
        if p.kind in ("buffer", "location"):
            decls.append(f"INTEGER(C_INTPTR_T) :: {p.name}_address")
            described = described_buffer(params, i) if p.kind == "buffer" else None
            if described:
                count, datatype = described
                large = count.base_type == "MPI_Count"
                ckind = "INTEGER(KIND=MPI_COUNT_KIND)" if large else "INTEGER"
                decls += [f"{ckind} :: {p.name}_count", f"INTEGER :: {p.name}_datatype"]
                pre.append(f"{p.name}_address = ferry_f08_buffer{'_c' if large else ''}({p.name}, {count.name}, "
                           f"{datatype.name}%MPI_VAL, {p.name}_count, {p.name}_datatype, ierr)")
                replaced[count.name] = f"{p.name}_count"
                replaced[datatype.name] = f"{p.name}_datatype"
                post.append(f"IF ({p.name}_datatype /= {datatype.name}%MPI_VAL) "
                            f"CALL ferry_f08_buffer_end({datatype.name}%MPI_VAL, {p.name}_datatype)")
            elif p.kind == "buffer" and copies_sections(fn):
                decls.append(f"INTEGER(C_INTPTR_T) :: {p.name}_copy")
                pre.append(f"{p.name}_address = ferry_f08_copy_in({p.name}, {p.name}_copy, ierr)")
                back = 0 if p.direction == "in" else 1
                post.append(f"CALL ferry_f08_copy_out({p.name}, {p.name}_copy, {back})")
            else:
                pre.append(f"{p.name}_address = ferry_f08_address({p.name}, ierr)")
            args.append(f"%VAL({p.name}_address)")
        else:
            args.append(p.name)
    args = [replaced.get(a, a) for a in args]
    lines = list(ADDRESS_INTERFACES) if pre else []
    lines += decls
    if fn.returns != "int":
        ftype = {"double": "DOUBLE PRECISION", "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)"}[fn.returns]
        lines.append(f"{ftype}, EXTERNAL :: {binding}")
        return lines + pre + [f"res = {binding}({', '.join(args)})"]
    lines.append("INTEGER :: ierr")
    lines.append("ierr = 0")
    lines += pre
    invocation = f"CALL {binding}({', '.join(args + ['ierr'])})"
    lines.append(f"IF (ierr == 0) {invocation}" if pre else invocation)
    lines += post
    lines.append("IF (PRESENT(ierror)) ierror = ierr")
    return lines


def wrap(line, indent=0):
    """Free-form lines of at most 132 characters, continued with &."""
    out = []
    text = " " * indent + line
    while len(text) > 130:
        cut = text.rfind(", ", 0, 126) + 1
        if cut <= indent + 4:
            cut = text.rfind(" ", 0, 126)
        if cut <= indent + 4:
            break
        out.append(text[:cut].rstrip() + " &")
        text = " " * (indent + 4) + "& " + text[cut:].lstrip()
    out.append(text)
    return out


def signature(fn):
    """fn's dummy arguments as the generic resolution sees them (type, kind, rank)."""
    kinds = ("MPI_ADDRESS_KIND", "MPI_OFFSET_KIND", "MPI_COUNT_KIND")
    out = []
    for p in params_of(fn):
        text = dummy(fn, p).split(" :: ")[0]
        for k in kinds:
            text = text.replace(k, "8")
        out.append((text.replace(", INTENT(IN)", "").replace(", INTENT(OUT)", ""), bool(p.array)))
    return out


def f08_functions(functions):
    """The routines mpi_f08 has, in the description's order, and those it cannot have (with why)."""
    chosen, skipped = [], []
    by_name = {fn.name: fn for fn in functions}
    for fn in functions:
        if fn.fortran == "no" or fn.name in NOT_IN_F08:
            continue
        if large_file_routine(fn):
            skipped.append((fn, "MPICH's mpi_f08 has no large-count file routines"))
            continue
        if fn.name in MANUAL_INTERFACES:
            chosen.append(fn)
            continue
        try:
            for p in params_of(fn):
                dummy(fn, p)
            procedure(fn, False)
            if fn.fortran == "f08" and fn.name not in F08_MANUAL and fn.name not in gen_f77.F08_C_BY_HAND:
                gen_f77.Binding(fn).text()  # the C binding it calls must exist
        except (Unsupported, gen_f77.Unsupported) as e:
            skipped.append((fn, str(e)))
            continue
        default = by_name.get(fn.name[:-2]) if fn.fortran == "f08" and fn.name not in OWN_GENERIC else None
        if default and signature(default) == signature(fn):
            # One generic cannot hold both (MPI_Aint, MPI_Offset and MPI_Count are all 8 bytes); as
            # in MPICH, the default form serves (MPI-4.0 §19.2).
            skipped.append((fn, "the same Fortran arguments as " + default.name))
            continue
        chosen.append(fn)
    return chosen, skipped


def types_module():
    lines = ["module mpi_f08_types",
             "  use, intrinsic :: iso_c_binding, only : c_int",
             "  use, intrinsic :: iso_fortran_env, only : int8, int16, int32, int64, real32, real64, real128",
             "  implicit none",
             "  private :: c_int, int8, int16, int32, int64, real32, real64, real128",
             "  integer, parameter :: MPI_STATUS_SIZE = 5", ""]
    for t in sorted(set(HANDLE_TYPES.values())):
        lines += [f"  type, bind(C) :: {t}", "    integer :: MPI_VAL", "  end type", ""]
    # The C struct's members, in its order (MPI-4.0 §19.3.5: MPI_Status_f082c copies it as it is).
    lines += ["  type, bind(C) :: MPI_Status",
              "    integer :: count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR",
              "  end type", ""]
    eq, ne = [], []
    for t in sorted(set(HANDLE_TYPES.values())):
        low = t.lower()
        eq += [f"{low}_eq", f"{low}_f08_eq_f", f"{low}_f_eq_f08"]
        ne += [f"{low}_neq", f"{low}_f08_neq_f", f"{low}_f_neq_f08"]
    lines += ["  interface operator(==)"] + wrap("module procedure " + ", ".join(eq), 4) + ["  end interface"]
    lines += ["  interface operator(/=)"] + wrap("module procedure " + ", ".join(ne), 4) + ["  end interface", ""]
    sizes = [("xint8", "integer(int8)", 1), ("xint16", "integer(int16)", 2), ("xint32", "integer(int32)", 4),
             ("xint64", "integer(int64)", 8), ("xreal32", "real(real32)", 4), ("xreal64", "real(real64)", 8),
             ("xreal128", "real(real128)", 16), ("xcomplex32", "complex(real32)", 8),
             ("xcomplex64", "complex(real64)", 16), ("xcomplex128", "complex(real128)", 32),
             ("logical", "logical", 4), ("character", "character(len=*)", 0)]
    lines += ["  ! MPI_SIZEOF (MPI-4.0 §19.1.9): the size in bytes of one element of x, whatever its rank.",
              "  interface MPI_Sizeof"] + wrap("module procedure " + ", ".join(f"mpi_sizeof_{s}" for s, _, _ in sizes), 4)
    lines += ["  end interface", "", "contains", ""]
    for t in sorted(set(HANDLE_TYPES.values())):
        low = t.lower()
        for op, sym in (("eq", "=="), ("neq", "/=")):
            lines += [f"  elemental logical function {low}_{op}(x, y)",
                      f"    type({t}), intent(in) :: x, y",
                      f"    {low}_{op} = x%MPI_VAL {sym} y%MPI_VAL",
                      "  end function",
                      f"  elemental logical function {low}_f08_{op}_f(x, y)",
                      f"    type({t}), intent(in) :: x",
                      "    integer, intent(in) :: y",
                      f"    {low}_f08_{op}_f = x%MPI_VAL {sym} y",
                      "  end function",
                      f"  elemental logical function {low}_f_{op}_f08(x, y)",
                      "    integer, intent(in) :: x",
                      f"    type({t}), intent(in) :: y",
                      f"    {low}_f_{op}_f08 = x {sym} y%MPI_VAL",
                      "  end function"]
    # MPICH's mpi_f08 has MPI_<Handle>_c2f/f2c for the integer handles (the same integer in both
    # languages with MPICH's ABI); programs built against it may call them.
    for t in sorted(set(HANDLE_TYPES.values()) - {"MPI_File"}):
        lines += [f"  function {t}_c2f(x) result(res)", "    integer(c_int), value :: x", "    integer :: res",
                  "    res = x", "  end function",
                  f"  function {t}_f2c(x) result(res)", "    integer, value :: x", "    integer(c_int) :: res",
                  "    res = x", "  end function"]
    # MPI-4.0 §19.3.5: between mpif.h's INTEGER(MPI_STATUS_SIZE) and TYPE(MPI_Status).
    lines += ["",
              "  subroutine MPI_Status_f2f08(f_status, f08_status, ierror)",
              "    integer, intent(in) :: f_status(MPI_STATUS_SIZE)",
              "    type(MPI_Status), intent(out) :: f08_status",
              "    integer, optional, intent(out) :: ierror",
              "    f08_status = MPI_Status(f_status(1), f_status(2), f_status(3), f_status(4), f_status(5))",
              "    if (present(ierror)) ierror = 0",
              "  end subroutine",
              "  subroutine MPI_Status_f082f(f08_status, f_status, ierror)",
              "    type(MPI_Status), intent(in) :: f08_status",
              "    integer, intent(out) :: f_status(MPI_STATUS_SIZE)",
              "    integer, optional, intent(out) :: ierror",
              "    f_status = [f08_status%count_lo, f08_status%count_hi_and_cancelled, f08_status%MPI_SOURCE, &",
              "                f08_status%MPI_TAG, f08_status%MPI_ERROR]",
              "    if (present(ierror)) ierror = 0",
              "  end subroutine", ""]
    for suffix, ftype, size in sizes:
        decl = f"{ftype}, dimension(..) :: x"
        value = "len(x)" if size == 0 else str(size)
        lines += [f"  subroutine mpi_sizeof_{suffix}(x, size, ierror)",
                  f"    {decl}",
                  "    integer, intent(out) :: size",
                  "    integer, optional, intent(out) :: ierror",
                  f"    size = {value}",
                  "    if (present(ierror)) ierror = 0",
                  "  end subroutine"]
    return lines + ["end module mpi_f08_types", ""]


def constants_module(constants, values):
    lines = ["module mpi_f08_compile_constants", "  use :: mpi_f08_types", "  implicit none",
             "  private :: MPI_STATUS_SIZE"]
    for c in constants:
        v = values[c.name]
        # MPI_SOURCE, MPI_TAG and MPI_ERROR stay: the indices into mpif.h's INTEGER(MPI_STATUS_SIZE),
        # for MPI_Status_f082f's result (TYPE(MPI_Status)'s members share the names, not the scope).
        if c.name == "MPI_SUBARRAYS_SUPPORTED":
            # Sections are described by a datatype where a buffer has its own count and datatype
            # (f08_buffer.c), which is where MPI-4.0 §19.1.12 asks for them.
            lines.append(f"  logical, parameter :: {c.name} = .true.")
        elif c.name in HANDLE_OF:
            t = HANDLE_OF[c.name]
            lines.append(f"  type({t}), parameter :: {c.name} = {t}({v})")
        elif c.type == "logical":
            lines.append(f"  logical, parameter :: {c.name} = {'.true.' if v else '.false.'}")
        elif c.type == "integer8":
            lines.append(f"  integer(kind=8), parameter :: {c.name} = {v}_8")
        elif c.name != "MPI_STATUS_SIZE":
            lines.append(f"  integer, parameter :: {c.name} = {v}")
    missing = set(HANDLE_OF) - {c.name for c in constants}
    for name in sorted(missing):
        t = HANDLE_OF[name]
        if name in values:
            lines.append(f"  type({t}), parameter :: {name} = {t}({values[name]})")
    return lines + ["end module mpi_f08_compile_constants", ""]


LINK_CONSTANTS = """\
module mpi_f08_link_constants
  ! The sentinels (MPI-4.0 §2.5.4): a binding knows them by their address. MPI_BOTTOM, MPI_IN_PLACE
  ! and the status sentinels are C objects under MPICH's names (f08_buffer.c and fortran_binding.h
  ! compare with them); the others are module variables, which gfortran names as MPICH's.
  use :: mpi_f08_types, only : MPI_Status
  implicit none
  integer, bind(C, name="MPIR_F08_MPI_BOTTOM"), target :: MPI_BOTTOM
  integer, bind(C, name="MPIR_F08_MPI_IN_PLACE"), target :: MPI_IN_PLACE
  type(MPI_Status), bind(C, name="MPIR_F08_MPI_STATUS_IGNORE_OBJ"), target :: MPI_STATUS_IGNORE
  type(MPI_Status), dimension(1), bind(C, name="MPIR_F08_MPI_STATUSES_IGNORE_OBJ"), target :: MPI_STATUSES_IGNORE
  integer, dimension(1), target :: MPI_ERRCODES_IGNORE
  character(len=1), dimension(1), target :: MPI_ARGV_NULL
  character(len=1), dimension(1, 1), target :: MPI_ARGVS_NULL
  integer, dimension(1), target :: MPI_UNWEIGHTED
  integer, dimension(1), target :: MPI_WEIGHTS_EMPTY
end module mpi_f08_link_constants
"""

CALLBACKS = """\
module mpi_f08_callbacks
  ! The predefined attribute callbacks (MPI-4.0 §7.7.2), as Fortran procedures: a keyval made with
  ! them calls them through mpif.h's trampolines (attributes.c) like any Fortran callback. And the
  ! abstract interfaces of the procedures a program writes (MPI-4.0 A.3.3), for its PROCEDURE()
  ! declarations; the routines themselves take any procedure (EXTERNAL).
  use :: mpi_f08_types
  use :: mpi_f08_compile_constants, only : MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND
  use, intrinsic :: iso_c_binding, only : c_ptr
  implicit none
  private :: c_ptr
"""

# MPI-4.0 A.3.3: name, arguments, declarations (types from mpi_f08_types, kinds from the constants).
ABSTRACT_INTERFACES = [
    ("MPI_User_function", "invec, inoutvec, len, datatype",
     ["type(c_ptr), value :: invec, inoutvec", "integer :: len", "type(MPI_Datatype) :: datatype"]),
    ("MPI_User_function_c", "invec, inoutvec, len, datatype",
     ["type(c_ptr), value :: invec, inoutvec", "integer(kind=MPI_COUNT_KIND) :: len",
      "type(MPI_Datatype) :: datatype"]),
]
for _obj, _t in (("Comm", "MPI_Comm"), ("Win", "MPI_Win"), ("Type", "MPI_Datatype")):
    ABSTRACT_INTERFACES += [
        (f"MPI_{_obj}_copy_attr_function",
         f"old{_obj.lower()}, {_obj.lower()}_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror",
         [f"type({_t}) :: old{_obj.lower()}", f"integer :: {_obj.lower()}_keyval, ierror",
          "integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out", "logical :: flag"]),
        (f"MPI_{_obj}_delete_attr_function", f"{_obj.lower()}, {_obj.lower()}_keyval, attribute_val, extra_state, ierror",
         [f"type({_t}) :: {_obj.lower()}", f"integer :: {_obj.lower()}_keyval, ierror",
          "integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state"]),
    ]
for _obj, _t in (("Comm", "MPI_Comm"), ("Win", "MPI_Win"), ("File", "MPI_File"), ("Session", "MPI_Session")):
    ABSTRACT_INTERFACES.append((f"MPI_{_obj}_errhandler_function", f"{_obj.lower()}, error_code",
                                [f"type({_t}) :: {_obj.lower()}", "integer :: error_code"]))
ABSTRACT_INTERFACES += [
    ("MPI_Grequest_query_function", "extra_state, status, ierror",
     ["integer(kind=MPI_ADDRESS_KIND) :: extra_state", "type(MPI_Status) :: status", "integer :: ierror"]),
    ("MPI_Grequest_free_function", "extra_state, ierror",
     ["integer(kind=MPI_ADDRESS_KIND) :: extra_state", "integer :: ierror"]),
    ("MPI_Grequest_cancel_function", "extra_state, complete, ierror",
     ["integer(kind=MPI_ADDRESS_KIND) :: extra_state", "logical :: complete", "integer :: ierror"]),
    ("MPI_Datarep_extent_function", "datatype, extent, extra_state, ierror",
     ["type(MPI_Datatype) :: datatype", "integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state",
      "integer :: ierror"]),
    ("MPI_Datarep_conversion_function", "userbuf, datatype, count, filebuf, position, extra_state, ierror",
     ["type(c_ptr), value :: userbuf, filebuf", "type(MPI_Datatype) :: datatype", "integer :: count, ierror",
      "integer(kind=MPI_OFFSET_KIND) :: position", "integer(kind=MPI_ADDRESS_KIND) :: extra_state"]),
    ("MPI_Datarep_conversion_function_c", "userbuf, datatype, count, filebuf, position, extra_state, ierror",
     ["type(c_ptr), value :: userbuf, filebuf", "type(MPI_Datatype) :: datatype",
      "integer(kind=MPI_COUNT_KIND) :: count", "integer :: ierror",
      "integer(kind=MPI_OFFSET_KIND) :: position", "integer(kind=MPI_ADDRESS_KIND) :: extra_state"]),
]


def callbacks_module():
    lines = CALLBACKS.rstrip("\n").split("\n")
    lines.append("  abstract interface")
    for name, args, decls in ABSTRACT_INTERFACES:
        lines += [f"    subroutine {name}({args})", "      import",
                  *[f"      {d}" for d in decls], "    end subroutine"]
    lines += ["  end interface", "contains"]
    for obj, t in (("comm", "MPI_Comm"), ("type", "MPI_Datatype"), ("win", "MPI_Win")):
        old = {"comm": "oldcomm", "type": "oldtype", "win": "oldwin"}[obj]
        handle = {"comm": "comm", "type": "datatype", "win": "win"}[obj]
        for kind, flag in (("dup", ".true."), ("null_copy", ".false.")):
            lines += [f"  subroutine MPI_{obj.upper()}_{kind.upper()}_FN({old}, {obj}_keyval, extra_state, "
                      "attribute_val_in, attribute_val_out, flag, ierror)",
                      f"    type({t}) :: {old}",
                      f"    integer :: {obj}_keyval, ierror",
                      "    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out",
                      "    logical :: flag",
                      f"    flag = {flag}"]
            if kind == "dup":
                lines.append("    attribute_val_out = attribute_val_in")
            lines += ["    ierror = 0", "  end subroutine"]
        lines += [f"  subroutine MPI_{obj.upper()}_NULL_DELETE_FN({handle}, {obj}_keyval, attribute_val, "
                  "extra_state, ierror)",
                  f"    type({t}) :: {handle}",
                  f"    integer :: {obj}_keyval, ierror",
                  "    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state",
                  "    ierror = 0", "  end subroutine"]
    # MPI_CONVERSION_FN_NULL: "no conversion" to MPI_Register_datarep (datarep.c knows its address).
    for suffix, count in (("", "INTEGER"), ("_c", "INTEGER(KIND=MPI_COUNT_KIND)")):
        lines += [f"  subroutine MPI_CONVERSION_FN_NULL{suffix}(userbuf, datatype, count, filebuf, position, "
                  "extra_state, ierror)",
                  "    type(c_ptr), value :: userbuf, filebuf",
                  "    type(MPI_Datatype) :: datatype",
                  f"    {count} :: count",
                  "    integer(kind=MPI_OFFSET_KIND) :: position",
                  "    integer(kind=MPI_ADDRESS_KIND) :: extra_state",
                  "    integer :: ierror",
                  "    ierror = 0", "  end subroutine"]
    return [wrapped for line in lines for wrapped in wrap(line)] + ["end module mpi_f08_callbacks", ""]


def main():
    description, program, modules_out, bindings_out, aliases_out = sys.argv[1:6]
    try:
        functions, constants = mpi_api.load(description)
    except mpi_api.DescriptionError as e:
        sys.exit(f"gen_f08: {e}")
    values = gen_mpif_h.read_values(program)
    chosen, skipped = f08_functions(functions)

    head = ["! Generated by bindings/fortran/gen_f08.py from src/api/mpi_api.txt: do not edit.", ""]
    modules = head + types_module() + constants_module(constants, values) + \
        LINK_CONSTANTS.split("\n") + callbacks_module()
    modules += ["module mpi_f08", "  use :: mpi_f08_types", "  use :: mpi_f08_compile_constants",
                "  use :: mpi_f08_link_constants", "  use :: mpi_f08_callbacks", "  implicit none", ""]
    generics = {}
    for fn in chosen:
        generics.setdefault(generic_name(fn), []).append(fn)
    # MPI_X (MPI_X_f08ts, ...) and PMPI_X (the same procedures under their profiling names,
    # PMPIR_X_f08ts: MPI-4.0 §15.2.3), so a profiling layer written with mpi_f08 can call PMPI_X.
    for profiling in (False, True):
        for generic, fns in generics.items():
            name = "P" + generic if profiling else generic
            modules.append(f"  interface {name}")
            for fn in fns:
                body = MANUAL_INTERFACES.get(fn.name) or procedure(fn, False)
                if profiling:
                    specific = specific_name(fn)
                    body = [body[0].replace(specific, specific_name(fn, True), 1)] + body[1:]
                for line in body:
                    modules += wrap(line, 4)
            modules.append(f"  end interface {name}")
    modules += ["  interface MPI_F_sync_reg"] + ["    " + line for line in MANUAL_INTERFACES["MPI_F_sync_reg"]]
    modules += ["  end interface MPI_F_sync_reg"]
    modules += ["", "  ! Not in mpi_f08 yet (gen_f08.py says why):"]
    modules += [f"  !   {fn.name}: {why}" for fn, why in skipped]
    modules += ["end module mpi_f08", ""]

    bindings = head[:1] + ["! The mpi_f08 procedures, under their profiling names; f08_aliases.ld gives the MPI_ names.", ""]
    aliases = ["/* Generated by bindings/fortran/gen_f08.py: each mpi_f08 procedure's MPI_ name is its",
               "   profiling name's address (MPICH's mpi_send_f08ts_ and pmpir_send_f08ts_). */"]
    for fn in chosen:
        if fn.name in F08_MANUAL:
            continue
        for line in procedure(fn, True):
            bindings += wrap(line)
        bindings.append("")
    for fn in chosen:
        aliases.append(f"{specific_name(fn).lower()}_ = {specific_name(fn, True).lower()}_;")
    aliases.append("mpi_f_sync_reg_f08ts_ = pmpir_f_sync_reg_f08ts_;")
    gen_mpif_h.write(modules_out, "\n".join(modules))
    gen_mpif_h.write(bindings_out, "\n".join(bindings))
    gen_mpif_h.write(aliases_out, "\n".join(aliases) + "\n")
    print(f"gen_f08: {len(chosen)} procedures, {len(skipped)} not yet")


if __name__ == "__main__":
    main()
