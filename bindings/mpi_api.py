"""Reads src/api/mpi_api.txt, the one description of Ferry's C API (its format is explained at the top
of that file and in docs/architecture.md, "One description of the API").

Every generator and check under bindings/ loads it through this module, so a mistake in the file is
reported once, with its line number, whatever the build was making.
"""
import re
from dataclasses import dataclass, field

KINDS = {"integer", "logical", "handle", "buffer", "location", "address", "string", "status", "callback",
         "weights", "errcodes", "argv", "enum", "opaque", "varargs"}
DIRECTIONS = {"in", "out", "inout"}
FORTRAN = {"all", "manual", "f08", "no"}
HANDLE_CLASSES = {"comm", "datatype", "group", "request", "op", "info", "errhandler", "win", "file", "message",
                  "session", "t_enum", "t_cvar", "t_pvar", "t_pvar_session", "t_event_registration",
                  "t_event_instance", "grequest_class"}
CONSTANT_TYPES = {"integer", "integer8", "logical"}


class DescriptionError(Exception):
    pass


def normalize_type(ctype):
    """One spelling per C type: 'const int*' and 'const int *' are 'const int *'; 'int[]' is 'int []';
    'char * []' is 'char *[]'."""
    ctype = " ".join(ctype.split())
    ctype = re.sub(r"\s*\*\s*", "*", ctype)
    ctype = re.sub(r"\s*\[", "[", ctype)
    return re.sub(r"([A-Za-z0-9_])([*\[])", r"\1 \2", ctype).strip()


def split_declaration(decl):
    """'const int ranks[]' -> ('const int []', 'ranks'); '...' -> ('...', '...')."""
    decl = decl.strip()
    if decl == "...":
        return "...", "..."
    m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[[^\]]*\])*)$", decl)
    if not m or not m.group(1).strip():
        raise DescriptionError(f"cannot read the C declaration '{decl}'")
    return normalize_type(m.group(1) + " " + m.group(3)), m.group(2)


@dataclass
class Param:
    decl: str            # the C declaration as written: "const int ranks[]"
    ctype: str           # normalized C type: "const int []"
    name: str
    direction: str
    kind: str
    handle: str = ""     # handle class, for kind "handle"
    array: bool = False
    length: str = ""     # array length expression
    max: str = ""        # capacity of an output string (C, with the NUL)
    fortran_int: bool = False
    index: bool = False  # an index into the program's array: from 0 in C, from 1 in Fortran
    filled: str = ""     # for an index array: the parameter counting the entries filled in

    @property
    def base_type(self):
        """The element type without const, pointers or brackets: 'MPI_Aint' for 'const MPI_Aint []'."""
        return re.sub(r"^const |\s*[*\[].*$", "", self.ctype).strip()


@dataclass
class Function:
    name: str
    returns: str
    fortran: str
    section: str
    line: int
    params: list = field(default_factory=list)
    qmpi: int = -1       # its value in MPICH's enum QMPI_Functions_enum; -1: QMPI cannot intercept it

    @property
    def qmpi_enumerator(self):
        """'MPI_SEND_T' for MPI_Send: MPICH's name of its QMPI_Functions_enum value."""
        return self.name.upper() + "_T"

    @property
    def has_fortran77(self):
        """Whether mpif.h programs (and the mpi module) have it: MPICH's Fortran routines."""
        return self.fortran in ("all", "manual")


@dataclass
class Constant:
    name: str
    type: str
    expression: str      # C expression over mpi.h; the name itself when the file gives none
    line: int


def parse_param(text, line):
    if ":" not in text:
        raise DescriptionError(f"line {line}: a parameter needs 'C declaration : direction kind': {text!r}")
    decl, spec = (s.strip() for s in text.rsplit(":", 1))
    ctype, name = split_declaration(decl)
    words = spec.split()
    if len(words) < 2 or words[0] not in DIRECTIONS:
        raise DescriptionError(f"line {line}: expected a direction ({', '.join(sorted(DIRECTIONS))}) and a kind: {spec!r}")
    direction, kind, rest = words[0], words[1], words[2:]
    if kind not in KINDS:
        raise DescriptionError(f"line {line}: unknown kind '{kind}'")
    p = Param(decl=decl, ctype=ctype, name=name, direction=direction, kind=kind)
    if kind == "handle":
        if not rest or rest[0] not in HANDLE_CLASSES:
            raise DescriptionError(f"line {line}: 'handle' needs a class ({', '.join(sorted(HANDLE_CLASSES))})")
        p.handle = rest.pop(0)
    for word in rest:
        if word == "array":
            p.array = True
        elif word.startswith("length="):
            p.length = word[len("length="):]
        elif word.startswith("max="):
            p.max = word[len("max="):]
        elif word == "fortran=int":
            p.fortran_int = True
        elif word == "index":
            p.index = True
        elif word.startswith("index="):
            p.index = True
            p.filled = word[len("index="):]
        else:
            raise DescriptionError(f"line {line}: unknown attribute '{word}'")
    if p.array != bool(p.length):
        raise DescriptionError(f"line {line}: 'array' and 'length=' go together")
    if p.index and (p.kind != "integer" or p.direction != "out" or p.array != bool(p.filled)):
        raise DescriptionError(f"line {line}: 'index' is for an output integer, 'index=COUNT' for an array of them")
    if p.kind == "string" and p.direction == "out" and not p.max:
        raise DescriptionError(f"line {line}: an output string needs max= (its C capacity)")
    return p


def load(path):
    """Returns (functions, constants), in the file's order. A function QMPI can intercept has its
    place in the "qmpi" list as Function.qmpi."""
    functions, constants = [], []
    section = ""
    in_constants = False
    qmpi_order = None    # the names after "qmpi", once that line is read
    current = None
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            stripped = line.strip()
            if stripped.startswith("## "):
                section = stripped[3:]
                continue
            if not stripped or stripped.startswith("#"):
                continue
            if stripped == "constants":
                in_constants = True
                current = None
                continue
            if stripped == "qmpi" and not in_constants:
                qmpi_order = []
                current = None
                continue
            if qmpi_order is not None and not in_constants:
                if not re.match(r"^MPIX?_[A-Za-z0-9_]+$", stripped) or line[0] in " \t":
                    raise DescriptionError(f"{path}:{number}: expected a function name in the qmpi list: {stripped!r}")
                qmpi_order.append((stripped, number))
                continue
            if in_constants:
                m = re.match(r"^([A-Z][A-Z0-9_]*)\s+(\S+)(?:\s*=\s*(.+))?$", stripped)
                if not m or m.group(2) not in CONSTANT_TYPES:
                    raise DescriptionError(f"{path}:{number}: expected 'NAME TYPE [= C expression]': {stripped!r}")
                constants.append(Constant(m.group(1), m.group(2), m.group(3) or m.group(1), number))
                continue
            if line[0] in " \t":
                if current is None:
                    raise DescriptionError(f"{path}:{number}: a parameter outside a function")
                try:
                    current.params.append(parse_param(stripped, number))
                except DescriptionError as e:
                    raise DescriptionError(f"{path}:{e}") from None
                continue
            m = re.match(r"^(P?MPIX?_[A-Za-z0-9_]+)(?:\s*->\s*([A-Za-z_][A-Za-z0-9_]*))?((?:\s+\S+)*)$", stripped)
            if not m:
                raise DescriptionError(f"{path}:{number}: expected a function name: {stripped!r}")
            fortran = "all"
            for option in m.group(3).split():
                key, _, value = option.partition("=")
                if key != "fortran" or value not in FORTRAN:
                    raise DescriptionError(f"{path}:{number}: unknown option '{option}'")
                fortran = value
            current = Function(m.group(1), m.group(2) or "int", fortran, section, number)
            functions.append(current)
    names = [f.name for f in functions]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DescriptionError(f"{path}: described twice: {' '.join(duplicates)}")
    by_name = {f.name: f for f in functions}
    for value, (name, number) in enumerate(qmpi_order or []):
        if name not in by_name:
            raise DescriptionError(f"{path}:{number}: {name} is in the qmpi list but not described")
        if by_name[name].qmpi >= 0:
            raise DescriptionError(f"{path}:{number}: {name} is in the qmpi list twice")
        by_name[name].qmpi = value
    return functions, constants
