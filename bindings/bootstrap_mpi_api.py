#!/usr/bin/env python3
"""Wrote the first src/api/mpi_api.txt from the headers; kept as the record of how it was made.

It ran once: src/api/mpi_api.txt is the source of truth now, edited by hand, and this script is not
part of the build. Running it again overwrites the hand edits (it writes to stdout, so compare first).

  bindings/bootstrap_mpi_api.py include/mpi/mpi.h \
      /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h /usr/include/x86_64-linux-gnu/mpich/mpif.h \
      /usr/lib/x86_64-linux-gnu/libmpichfort.so.12 > src/api/mpi_api.txt

What it knew: the C declarations of Ferry's mpi.h (checked against MPICH's mpi_proto.h and mpio.h: same functions,
same parameter types), the Fortran routines MPICH's libmpichfort exports (which functions have a
Fortran binding at all), MPICH's mpif.h (which constants a Fortran program sees, and their Fortran
types), and the rules below for what C's types do not say: direction, logical vs integer, the
length of each array, the capacity of each output string.
"""
import re
import subprocess
import sys

ferry_h, mpich_proto_h, mpich_mpif_h, mpich_fort_lib = sys.argv[1:5]


def strip_c(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"\n\s*#[^\n]*", "\n", text)
    return text


def split_params(params):
    params = params.strip()
    if params in ("", "void"):
        return []
    return [p.strip() for p in params.split(",")]


DECL = re.compile(r"(int|double|MPI_Aint|MPI_Fint|MPI_File|MPI_Count) (P?MPIX?_[A-Za-z0-9_]+) ?\(([^)]*)\)")


def read_ferry(path):
    """Functions of Ferry's header in order, each with the section comment it sits under."""
    text = open(path).read()
    functions = []
    section = None
    # Section titles are one-line comments just above a group of declarations.
    for chunk in re.split(r"(/\*.*?\*/)", text, flags=re.S):
        if chunk.startswith("/*"):
            body = " ".join(chunk[2:-2].split())
            if body and not body.startswith("=") and not body.startswith("-") and len(body) < 200:
                section = body
            continue
        chunk = re.sub(r"\n\s*#[^\n]*", "\n", chunk)
        chunk = " ".join(chunk.split())
        for ret, name, params in DECL.findall(chunk):
            if name.startswith("PMPI"):
                continue
            functions.append((section, ret, name, split_params(params)))
    return functions


def read_mpich(path):
    # MPI-IO's prototypes are in mpio.h beside mpi_proto.h.
    text = open(path).read() + open(path.replace("mpi_proto.h", "mpio.h")).read()
    text = " ".join(strip_c(text).split())
    text = re.sub(r"MPICH_ATTR_[A-Z_]+\([^)]*\)", "", text)
    return {name: (ret, split_params(params)) for ret, name, params in DECL.findall(text)}


def decl_parts(decl):
    """'const int ranks[]' -> ('const int []', 'ranks')."""
    m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[[^\]]*\])*)$", decl)
    ctype = " ".join((m.group(1) + " " + m.group(3)).split())
    return ctype.replace(" *", "*").replace("*", " *").replace("  ", " ").strip(), m.group(2)


def norm(ctype):
    return ctype.replace(" ", "")


HANDLES = {
    "MPI_Comm": "comm", "MPI_Datatype": "datatype", "MPI_Group": "group", "MPI_Request": "request",
    "MPI_Op": "op", "MPI_Info": "info", "MPI_Errhandler": "errhandler", "MPI_Win": "win",
    "MPI_File": "file", "MPI_Message": "message", "MPI_Session": "session",
    "MPI_T_enum": "t_enum", "MPI_T_cvar_handle": "t_cvar", "MPI_T_pvar_handle": "t_pvar",
    "MPI_T_pvar_session": "t_pvar_session", "MPI_T_event_registration": "t_event_registration",
    "MPI_T_event_instance": "t_event_instance", "MPIX_Grequest_class": "grequest_class",
}
INTEGERS = {"int", "MPI_Aint", "MPI_Offset", "MPI_Count", "MPI_Fint"}
LOGICAL_NAMES = {"flag", "commute", "reorder", "periods", "remain_dims", "high"}

# Pointers that are read and written.
INOUT = {
    ("MPI_Wait", "request"), ("MPI_Test", "request"), ("MPI_Start", "request"),
    ("MPI_Request_free", "request"), ("MPI_Waitany", "array_of_requests"),
    ("MPI_Waitall", "array_of_requests"), ("MPI_Waitsome", "array_of_requests"),
    ("MPI_Testany", "array_of_requests"), ("MPI_Testall", "array_of_requests"),
    ("MPI_Testsome", "array_of_requests"), ("MPI_Startall", "array_of_requests"),
    ("MPI_Cancel", "request"),
    ("MPI_Comm_free", "comm"), ("MPI_Comm_disconnect", "comm"), ("MPI_Type_free", "datatype"),
    ("MPI_Type_commit", "datatype"), ("MPI_Group_free", "group"), ("MPI_Info_free", "info"),
    ("MPI_Op_free", "op"), ("MPI_Errhandler_free", "errhandler"), ("MPI_Win_free", "win"),
    ("MPI_File_close", "fh"), ("MPI_Session_finalize", "session"),
    ("MPI_Comm_free_keyval", "comm_keyval"), ("MPI_Type_free_keyval", "type_keyval"),
    ("MPI_Win_free_keyval", "win_keyval"), ("MPI_Keyval_free", "keyval"),
    ("MPI_Dims_create", "dims"), ("MPI_Mrecv", "message"), ("MPI_Imrecv", "message"),
    ("MPI_Info_get_string", "buflen"), ("MPI_Session_get_nth_pset", "pset_len"),
    ("MPI_Status_set_cancelled", "status"), ("MPI_Status_set_elements", "status"),
    ("MPI_Status_set_elements_x", "status"), ("MPI_Init", "argc"), ("MPI_Init", "argv"),
    ("MPI_T_pvar_handle_free", "handle"), ("MPI_T_cvar_handle_free", "handle"),
    ("MPI_T_pvar_session_free", "session"), ("MPI_T_event_handle_free", "event_registration"),
    ("MPIX_Grequest_class_allocate", "request"),
}
for base in ("MPI_Pack", "MPI_Unpack", "MPI_Pack_external", "MPI_Unpack_external"):
    INOUT.add((base, "position"))
for name in ("MPI_Bcast", "MPI_Ibcast", "MPI_Bcast_init", "MPI_Sendrecv_replace", "MPI_Isendrecv_replace"):
    INOUT.add((name, "buffer"))
    INOUT.add((name, "buf"))
INOUT.add(("MPI_Reduce_local", "inoutbuf"))
INOUT.add(("MPI_File_get_view", "disp"))  # not really; fixed below to out

# Read-only arguments that C declares without const (MPI-1 prototypes, MPICH's choices).
IN_NONCONST = {
    ("MPI_Pready_list", "array_of_partitions"), ("MPI_Group_range_incl", "ranges"),
    ("MPI_Group_range_excl", "ranges"), ("MPI_Comm_spawn", "argv"),
    ("MPI_Comm_spawn_multiple", "array_of_commands"), ("MPI_Comm_spawn_multiple", "array_of_argv"),
    ("MPI_Type_hindexed", "array_of_blocklengths"), ("MPI_Type_hindexed", "array_of_displacements"),
    ("MPI_Type_struct", "array_of_blocklengths"), ("MPI_Type_struct", "array_of_displacements"),
    ("MPI_Type_struct", "array_of_types"), ("MPI_Info_create_env", "argv"),
    ("MPI_Buffer_attach", "buffer"), ("MPI_Win_create", "base"), ("MPI_Win_attach", "base"),
}

# void* arguments that Fortran holds as INTEGER(KIND=MPI_ADDRESS_KIND) (MPI-4.0 §19.1.10).
ADDRESS_NAMES = {"attribute_val", "attr_value", "extra_state", "baseptr", "buffer_addr"}
# Choice arguments whose address matters, never a buffer an MPI_BOTTOM could stand for.
LOCATION = {("MPI_Get_address", "location"), ("MPI_Address", "location"), ("MPI_Free_mem", "base")}

# The deprecated MPI-1 forms whose Fortran arguments are default INTEGERs where C has MPI_Aint
# (MPI-1.1 §3.12, §3.12.7): MPI_Address, MPI_Type_extent/lb/ub, MPI_Type_hvector/hindexed/struct.
FORTRAN_INT = {
    ("MPI_Address", "address"), ("MPI_Type_extent", "extent"), ("MPI_Type_lb", "displacement"),
    ("MPI_Type_ub", "displacement"), ("MPI_Type_hvector", "stride"),
    ("MPI_Type_hindexed", "array_of_displacements"), ("MPI_Type_struct", "array_of_displacements"),
}

# Capacity of output strings, as C counts it (with the terminating NUL).
STRING_MAX = {
    "MPI_Get_library_version": "MPI_MAX_LIBRARY_VERSION_STRING",
    "MPI_Get_processor_name": "MPI_MAX_PROCESSOR_NAME",
    "MPI_Error_string": "MPI_MAX_ERROR_STRING",
    "MPI_Comm_get_name": "MPI_MAX_OBJECT_NAME", "MPI_Type_get_name": "MPI_MAX_OBJECT_NAME",
    "MPI_Win_get_name": "MPI_MAX_OBJECT_NAME",
    "MPI_Open_port": "MPI_MAX_PORT_NAME", "MPI_Lookup_name": "MPI_MAX_PORT_NAME",
    "MPI_Info_get_nthkey": "MPI_MAX_INFO_KEY", "MPI_File_get_view": "MPI_MAX_DATAREP_STRING",
    "MPI_Info_get": "valuelen+1", "MPI_Info_get_string": "*buflen", "MPI_Session_get_nth_pset": "*pset_len",
}

COLLECTIVE_V = {"sendcounts", "recvcounts", "displs", "sdispls", "rdispls", "sendtypes", "recvtypes"}


def array_length(fn, name, params):
    base = re.sub(r"_c$", "", fn)
    names = [n for _, n in params]
    if base in ("MPI_Comm_spawn",):
        return {"argv": "*", "array_of_errcodes": "maxprocs"}.get(name, "*")
    if base == "MPI_Comm_spawn_multiple":
        return "*" if name in ("array_of_argv", "array_of_errcodes") else "count"
    if name in COLLECTIVE_V:
        if "neighbor" in base.lower():
            if name in ("sendcounts", "sdispls", "sendtypes"):
                return "outdegree(comm)"
            return "indegree(comm)"
        if base in ("MPI_Gatherv", "MPI_Igatherv", "MPI_Gatherv_init") and name in ("recvcounts", "displs"):
            return "size(comm)"
        return "size(comm)"
    if base in ("MPI_Testsome", "MPI_Waitsome"):
        return "incount"
    table = {
        "MPI_Cart_create": "ndims", "MPI_Cart_map": "ndims", "MPI_Dims_create": "ndims",
        "MPI_Cart_get": "maxdims", "MPI_Cart_coords": "maxdims", "MPI_Cart_rank": "ndims(comm)",
        "MPI_Cart_sub": "ndims(comm)", "MPI_Type_create_subarray": "ndims", "MPI_Type_create_darray": "ndims",
        "MPI_Group_incl": "n", "MPI_Group_excl": "n", "MPI_Group_range_incl": "n", "MPI_Group_range_excl": "n",
        "MPI_Group_translate_ranks": "n", "MPI_Pready_list": "length",
    }
    if base in table:
        return table[base]
    if base in ("MPI_Graph_create", "MPI_Graph_map"):
        return "nnodes" if name in ("index", "indx") else "index[nnodes-1]"
    if base == "MPI_Graph_get":
        return {"index": "maxindex", "indx": "maxindex", "edges": "maxedges"}[name]
    if base == "MPI_Graph_neighbors":
        return "maxneighbors"
    if base == "MPI_Dist_graph_create":
        return {"sources": "n", "degrees": "n"}.get(name, "sum(degrees)")
    if base == "MPI_Dist_graph_create_adjacent":
        return "indegree" if name.startswith("source") else "outdegree"
    if base == "MPI_Dist_graph_neighbors":
        return "maxindegree" if name.startswith("source") else "maxoutdegree"
    if base == "MPI_Type_get_contents":
        return {"array_of_integers": "max_integers", "array_of_addresses": "max_addresses",
                "array_of_large_counts": "max_large_counts", "array_of_datatypes": "max_datatypes"}[name]
    if base == "MPI_Info_create_env":
        return "argc"
    if "count" in names:
        return "count"
    return "*"


def kind_of(fn, ctype, name, params):
    base = re.sub(r"_c$", "", fn)
    c = norm(ctype)
    is_array = "[" in c
    is_const = c.startswith("const")
    bare = re.sub(r"^const|\*|\[.*", "", c)
    pointer = c.count("*") + c.count("[")
    attrs = []
    if base.startswith("MPI_T_") and name.endswith("_len"):
        direction = "inout"  # MPI-4.0 §15.3.3: in, the buffer's size; out, the string's
    elif (base, name) in INOUT and (base, name) != ("MPI_File_get_view", "disp"):
        direction = "inout"
    elif is_const or pointer == 0 or (base, name) in IN_NONCONST:
        direction = "in"
    else:
        direction = "out"
    if c.endswith("_function*") or c.endswith("_function") or "_cb_function" in c:
        kind = "callback"
        direction = "in"
    elif bare == "void":
        if (base, name) in LOCATION:
            kind = "location"
            direction = "in"
        elif name in ADDRESS_NAMES:
            kind = "address"
            if c == "void*" and name in ("extra_state",):
                direction = "in"
            elif base.endswith("_set_attr") or base in ("MPI_Attr_put",):
                direction = "in"
        else:
            kind = "buffer"
    elif bare == "char":
        if c in ("char***", "char*[]", "char**[]"):
            kind = "argv"
        else:
            kind = "string"
            if direction == "out":
                if base.startswith("MPI_T_"):
                    attrs.append(f"max=*{name}_len")
                else:
                    attrs.append("max=" + STRING_MAX.get(base, "*"))
    elif bare == "MPI_Status":
        kind = "status"
    elif bare in ("MPI_F08_status",):
        kind = "opaque"
    elif bare in HANDLES:
        kind = "handle " + HANDLES[bare]
    elif bare in ("MPI_T_cb_safety", "MPI_T_source_order"):
        kind = "enum"
    elif bare in INTEGERS:
        if name in LOGICAL_NAMES and base != "MPIX_Comm_agree" and bare == "int":
            kind = "logical"
        elif name in ("sourceweights", "destweights", "weights"):
            kind = "weights"
        elif name == "array_of_errcodes":
            kind = "errcodes"
        else:
            kind = "integer"
    else:
        kind = "opaque"
    if is_array and kind not in ("argv", "string"):
        attrs.insert(0, "array length=" + array_length(fn, name, params))
    if (base, name) in FORTRAN_INT:
        attrs.append("fortran=int")
    return " ".join([direction, kind] + attrs)


def fortran_names(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        sym = line.split()[-1]
        if re.match(r"^mpix?_[a-z0-9_]*[a-z0-9]_$", sym) and "f08" not in sym:
            names.add(sym[:-1])
    return names


# Functions whose Fortran binding is written by hand (bindings/fortran/*.c), and why.
MANUAL = {
    "MPI_Init": "no argc/argv in Fortran", "MPI_Init_thread": "no argc/argv in Fortran",
    "MPI_Pcontrol": "C takes varargs", "MPI_Info_create_env": "no argc/argv in Fortran",
    "MPI_Comm_spawn": "argv arrays of blank-padded strings",
    "MPI_Comm_spawn_multiple": "argv arrays of blank-padded strings",
    "MPI_Buffer_detach": "the C address is not written back",
    "MPI_Comm_get_attr": "predefined attributes are integers in Fortran",
    "MPI_Type_get_attr": "predefined attributes are integers in Fortran",
    "MPI_Win_get_attr": "predefined attributes are integers in Fortran",
    "MPI_Attr_get": "INTEGER attribute values", "MPI_Attr_put": "INTEGER attribute values",
    "MPI_Comm_create_keyval": "Fortran callbacks", "MPI_Type_create_keyval": "Fortran callbacks",
    "MPI_Win_create_keyval": "Fortran callbacks", "MPI_Keyval_create": "Fortran callbacks",
    "MPI_Grequest_start": "Fortran callbacks", "MPI_Register_datarep": "Fortran callbacks",
    "MPI_Info_get_string": "buflen counts Fortran characters",
    "MPI_Session_get_nth_pset": "pset_len counts Fortran characters",
}


def main():
    ferry = read_ferry(ferry_h)
    mpich = read_mpich(mpich_proto_h)
    fnames = fortran_names(mpich_fort_lib)
    problems = []
    print(HEADER)
    section = None
    seen = set()
    for sec, ret, name, params in ferry:
        if name in seen:
            continue
        seen.add(name)
        if name not in mpich:
            problems.append(f"{name}: not in MPICH's header")
        else:
            mret, mparams = mpich[name]
            mine = [norm(decl_parts(p)[0]) for p in params if p != "..."]
            theirs = [norm(decl_parts(p)[0]) for p in mparams if p != "..."]
            if ret != mret or mine != theirs:
                problems.append(f"{name}: differs from MPICH's {mparams}")
        if sec != section:
            section = sec
            print(f"\n## {sec}\n")
        options = []
        if name.lower() in fnames:
            if name in MANUAL:
                options.append("fortran=manual")
        elif name.endswith("_c") and name[:-2].lower() in fnames:
            options.append("fortran=f08")
        else:
            options.append("fortran=no")
        head = name if ret == "int" else f"{name} -> {ret}"
        print(" ".join([head] + options))
        parsed = [decl_parts(p) if p != "..." else ("...", "...") for p in params]
        width = max([len(p) for p in params] + [28])
        for p, (ctype, pname) in zip(params, parsed):
            if p == "...":
                print(f"    {'...':<{width}} : in varargs")
                continue
            print(f"    {p:<{width}} : {kind_of(name, ctype, pname, parsed)}")
    print(CONSTANTS_HEADER)
    for line in mpif_constants():
        print(line)
    for p in problems:
        print("bootstrap:", p, file=sys.stderr)


def mpif_constants():
    """Constants of MPICH's mpif.h: name, Fortran type, and a C expression where the value is not the
    C constant of the same name."""
    text = open(mpich_mpif_h).read()
    types = {}
    values = {}
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("!"):
            continue
        m = re.match(r"^(INTEGER|integer\*8|LOGICAL)\s+([A-Z0-9_, ]+)$", s)
        if m:
            for name in m.group(2).split(","):
                types[name.strip()] = m.group(1).lower()
            continue
        m = re.match(r"^PARAMETER\s*\((.*)\)$", s)
        if m:
            for assignment in m.group(1).split(","):
                name, value = assignment.split("=")
                values[name.strip()] = value.strip()
    c_text = open(ferry_h).read()
    # Fortran's own values, as C expressions over mpi.h.
    fortran_own = {
        "MPI_SOURCE": "offsetof(MPI_Status, MPI_SOURCE) / sizeof(MPI_Fint) + 1",
        "MPI_TAG": "offsetof(MPI_Status, MPI_TAG) / sizeof(MPI_Fint) + 1",
        "MPI_ERROR": "offsetof(MPI_Status, MPI_ERROR) / sizeof(MPI_Fint) + 1",
        "MPI_STATUS_SIZE": "sizeof(MPI_Status) / sizeof(MPI_Fint)",
        "MPI_ADDRESS_KIND": "sizeof(MPI_Aint)", "MPI_OFFSET_KIND": "sizeof(MPI_Offset)",
        "MPI_COUNT_KIND": "sizeof(MPI_Count)", "MPI_INTEGER_KIND": "sizeof(MPI_Fint)",
        "MPI_SUBARRAYS_SUPPORTED": "0", "MPI_ASYNC_PROTECTS_NONBLOCKING": "0",
    }
    out = []
    for name, ftype in types.items():
        if name not in values:
            continue
        fortran_type = {"integer": "integer", "integer*8": "integer8", "logical": "logical"}[ftype]
        if name in fortran_own:
            out.append(f"{name} {fortran_type} = {fortran_own[name]}")
        elif name.startswith("MPI_MAX_") and name != "MPI_MAX":
            out.append(f"{name} {fortran_type} = {name} - 1")
        elif re.search(r"#define\s+" + name + r"\b", c_text) or re.search(r"\b" + name + r"\s*=", c_text):
            out.append(f"{name} {fortran_type}")
        else:
            print(f"bootstrap: {name} is not in mpi.h; its value {values[name]} is MPICH's", file=sys.stderr)
            out.append(f"{name} {fortran_type} = {values[name]}")
    return out


HEADER = """\
# The C API of Ferry's libmpi, described once (docs/architecture.md, "One description of the API").
#
# Every function include/mpi/mpi.h declares (MPI_ and MPIX_; each also as PMPI_), and the constants a
# Fortran program sees. The build generates from it the Fortran bindings (bindings/fortran) and
# checks mpi.h against it (test abi_mpi_h_matches_description). Edit this file, never the copies.
#
# A function is its name at the start of a line, with "-> TYPE" when it returns something other than
# an int error code, and options:
#   fortran=manual  its Fortran binding is written by hand (bindings/fortran/*.c), not generated
#   fortran=f08     only mpi_f08 has it (the MPI-4.0 large-count _c forms)
#   fortran=no      C only (the tool interface, the C<->Fortran conversions, MPICH has none either)
# then one indented line per parameter: its C declaration, a colon, its direction (in, out, inout) and
# its kind, with attributes:
#   integer          an integer of the C type (Fortran: INTEGER of the matching kind)
#   logical          C int used as a truth value (Fortran: LOGICAL)
#   handle CLASS     an MPI object (comm, datatype, group, request, op, info, errhandler, win, file,
#                    message, session; t_* for the tool interface's C-only ones)
#   buffer           choice buffer: MPI_BOTTOM and MPI_IN_PLACE may stand for it
#   location         choice argument whose address is the value (MPI_Get_address)
#   address          void* that Fortran holds as INTEGER(KIND=MPI_ADDRESS_KIND): attribute values,
#                    extra_state, memory addresses
#   string max=EXPR  characters; an output string's C capacity with its NUL is EXPR
#   status           MPI_Status (MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE may stand for it)
#   callback         a function pointer of the C type given
#   weights          int array where MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY may stand
#   errcodes         int array where MPI_ERRCODES_IGNORE may stand
#   argv             array of strings (MPI_ARGV_NULL / MPI_ARGVS_NULL may stand)
#   enum, opaque     C-only types
#   array length=EXPR   an array of EXPR elements; EXPR names other parameters, size(comm) (remote
#                       size of an intercommunicator), indegree(comm)/outdegree(comm) (topology
#                       neighbours), ndims(comm), or * when only the program knows
#   fortran=int      Fortran passes a default INTEGER where C has MPI_Aint (MPI-1's removed forms)"""

CONSTANTS_HEADER = """

# ---------------------------------------------------------------------------------------------------
# Constants a Fortran program sees (mpif.h, later the mpi and mpi_f08 modules), after "constants":
# NAME TYPE [= C-EXPRESSION]. TYPE is integer, integer8 (INTEGER*8) or logical. The value is the C
# expression's over mpi.h, evaluated at build time (by a program compiled against mpi.h); without one,
# the C constant of the same name. Fortran's own values are expressions too: the status indices from
# MPI_Status's layout, the kinds from the C types' sizes, and the lengths of strings, which in
# Fortran count no terminating NUL (MPI_MAX_* - 1, as MPICH's mpif.h has them).
# ---------------------------------------------------------------------------------------------------
constants"""

main()
