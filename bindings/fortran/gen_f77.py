#!/usr/bin/env python3
"""Generates the Fortran 77-style bindings (what mpif.h programs and the mpi module call) as C.

  gen_f77.py <mpi_api.txt> <output.c>

One C function per routine of src/api/mpi_api.txt that has a Fortran binding and is not written by
hand (fortran=all): pmpi_x_, taking every argument by reference as Fortran passes it, then the
error code's address, then the hidden lengths of its CHARACTER arguments; it converts what differs
between the languages (fortran_binding.h says what) and calls the C function MPI_X, so that a C
profiling tool sees Fortran calls too, as with MPICH. MPICH's seven other spellings are weak aliases.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mpi_api  # noqa: E402


class Unsupported(Exception):
    pass


# Large-count forms (fortran=f08) whose C binding ferry_f08_x_ is written by hand: their callbacks are
# Fortran procedures that C cannot call as they are (datarep.c's trampolines).
F08_C_BY_HAND = {"MPI_Register_datarep_c"}


def fortran_integer_type(base):
    """The C type of a Fortran INTEGER holding a C integer of type base."""
    return "MPI_Fint" if base in ("int", "MPI_Fint") else base


def value_expression(expr, params):
    """A length expression of the description, over the Fortran arguments (all pointers)."""
    names = {p.name for p in params}
    if re.search(r"[a-z_]+\(", expr) or "*" == expr:
        raise Unsupported(f"length '{expr}' cannot be computed in a binding")
    return re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*)\b",
                  lambda m: f"(*{m.group(1)})" if m.group(1) in names else m.group(1), expr)


class Binding:
    def __init__(self, fn):
        self.fn = fn
        self.decls = []        # parameters of the Fortran-callable function
        self.lengths = []      # hidden CHARACTER lengths, appended last
        self.pre = []          # statements before the call
        self.allocated = []    # C variables that must be non-NULL before the call, freed after
        self.args = []         # arguments of the C call
        self.post = []         # statements after a successful call
        self.always = []       # statements after the call, success or not

    def add(self, p):
        k, d, base, name = p.kind, p.direction, p.base_type, p.name
        pointer = "*" in p.ctype or "[" in p.ctype
        cvar = f"c_{name}"
        if k == "buffer":
            self.decls.append(f"void *{name}")
            self.args.append(f"ferry_fortran_buffer({name})")
        elif k == "location":
            self.decls.append(f"void *{name}")
            self.args.append(name)
        elif k == "integer":
            if p.fortran_int:
                self.decls.append(f"MPI_Fint *{name}")
                if not pointer:
                    self.args.append(f"({base})*{name}")
                elif p.array:
                    if d != "in":
                        raise Unsupported(f"{name}: output array of converted integers")
                    n = value_expression(p.length, self.fn.params)
                    self.pre.append(f"{base} *{cvar} = malloc(sizeof({base}) * (size_t)({n} > 0 ? {n} : 1));")
                    self.pre.append(f"if ({cvar}) for (int i = 0; i < {n}; i++) {cvar}[i] = {name}[i];")
                    self.allocated.append(cvar)
                    self.args.append(cvar)
                else:
                    init = f"*{name}" if d == "inout" else "0"
                    self.pre.append(f"{base} {cvar} = {init};")
                    self.args.append(f"&{cvar}")
                    self.always.append(f"*{name} = (MPI_Fint){cvar};")
            else:
                ftype = fortran_integer_type(base)
                self.decls.append(f"{ftype} *{name}")
                if not pointer:
                    self.args.append(f"*{name}")
                elif p.ctype.endswith("[][3]"):
                    self.args.append(f"(int (*)[3]){name}")
                else:
                    self.args.append(name)
                if p.index and not p.array:
                    # MPI-4.0 §19.1: Fortran counts the requests from 1; MPI_UNDEFINED stays.
                    self.pre.append(f"*{name} = MPI_UNDEFINED;")
                    self.always.append(f"if (*{name} >= 0) *{name} += 1;")
                elif p.index:
                    self.pre.append(f"*{p.filled} = MPI_UNDEFINED;")
                    self.always.append(f"for (int i = 0; i < *{p.filled}; i++) {name}[i] += 1;")
        elif k == "logical":
            self.decls.append(f"MPI_Fint *{name}")
            if p.array:
                self.args.append(name)  # gfortran's LOGICAL is C's 0/1 (fortran_binding.h)
            elif not pointer:
                self.args.append(f"ferry_fortran_logical_in({name})")
            else:
                init = f"ferry_fortran_logical_in({name})" if d == "inout" else "0"
                self.pre.append(f"int {cvar} = {init};")
                self.args.append(f"&{cvar}")
                self.always.append(f"*{name} = {cvar} ? FERRY_FORTRAN_TRUE : FERRY_FORTRAN_FALSE;")
        elif k == "handle":
            if p.handle.startswith("t_") or p.handle == "grequest_class":
                raise Unsupported(f"{name}: handle {p.handle} has no Fortran form")
            self.decls.append(f"MPI_Fint *{name}")
            if p.handle == "file":
                if p.array:
                    raise Unsupported(f"{name}: array of files")
                if not pointer:
                    self.args.append(f"MPI_File_f2c(*{name})")
                else:
                    init = f"MPI_File_f2c(*{name})" if d == "inout" else "MPI_FILE_NULL"
                    self.pre.append(f"MPI_File {cvar} = {init};")
                    self.args.append(f"&{cvar}")
                    self.always.append(f"*{name} = MPI_File_c2f({cvar});")
            elif not pointer:
                self.args.append(f"({base})*{name}")
            else:
                self.args.append(f"({base} *){name}")
        elif k == "address":
            self.decls.append(f"MPI_Aint *{name}")
            self.args.append(f"(void *)*{name}" if d == "in" else name)
        elif k == "string":
            self.decls.append(f"{'const ' if d == 'in' else ''}char *{name}")
            self.lengths.append(f"ferry_fortran_length {name}_len")
            if d == "in":
                # MPI-4.0 §10: Fortran's info keys and values lose leading blanks too.
                convert = "ferry_fortran_string_in_stripped" if self.fn.name.startswith("MPI_Info_") \
                    else "ferry_fortran_string_in"
                self.pre.append(f"char *{cvar} = {convert}({name}, {name}_len);")
            else:
                size = value_expression(p.max, self.fn.params)
                self.pre.append(f"char *{cvar} = calloc((size_t)({size} > 0 ? {size} : 1), 1);")
                # A value not found (flag false: MPI_Info_get) leaves the variable as it was.
                found = " if (c_flag)" if any(q.name == "flag" and q.kind == "logical" and q.direction == "out"
                                              for q in self.fn.params) else ""
                self.post.append(f"{found} ferry_fortran_string_out({cvar}, {name}, {name}_len);".lstrip())
            self.allocated.append(cvar)
            self.args.append(cvar)
        elif k == "status":
            self.decls.append(f"MPI_Fint *{name}")
            self.args.append(f"ferry_fortran_statuses({name})" if p.array else f"ferry_fortran_status({name})")
        elif k == "callback":
            self.decls.append(p.decl)
            self.args.append(name)
        elif k == "weights":
            self.decls.append(f"MPI_Fint *{name}")
            self.args.append(f"ferry_fortran_weights({name})")
        elif k == "errcodes":
            self.decls.append(f"MPI_Fint *{name}")
            self.args.append(f"ferry_fortran_errcodes({name})")
        else:
            raise Unsupported(f"{name}: kind {k} needs a hand-written binding")

    def text(self):
        fn = self.fn
        for p in fn.params:
            self.add(p)
        lower = fn.name.lower()
        # The large-count forms (fortran=f08) have no mpif.h name: the mpi_f08 bindings call them
        # under a name of Ferry's own, which libmpifort does not export.
        symbol = f"ferry_f08_{lower[4:]}_" if fn.fortran == "f08" else f"p{lower}_"
        returns_code = fn.returns == "int"
        params = self.decls + (["MPI_Fint *ierr"] if returns_code else []) + self.lengths
        ret = "void" if returns_code else fn.returns
        out = [f"/* {fn.name} ({fn.section}) */",
               f"{ret} {symbol}({', '.join(params) or 'void'}) {{"]
        body = list(self.pre)
        call = f"{fn.name}({', '.join(self.args)})"
        if not returns_code:
            if self.pre or self.post or self.always or self.allocated:
                raise Unsupported("a function returning a value converts no arguments")
            body.append(f"return {call};")
        elif self.allocated:
            ok = " && ".join(self.allocated)
            body.append(f"if ({ok}) {{")
            body.append(f"  *ierr = {call};")
            if self.post:
                body.append("  if (*ierr == MPI_SUCCESS) {")
                body += [f"    {s}" for s in self.post]
                body.append("  }")
            body.append("} else {")
            body.append("  *ierr = MPI_ERR_NO_MEM;")
            body.append("}")
            body += self.always
            body += [f"free({v});" for v in self.allocated]
        else:
            body.append(f"*ierr = {call};")
            if self.post:
                body.append("if (*ierr == MPI_SUCCESS) {")
                body += [f"  {s}" for s in self.post]
                body.append("}")
            body += self.always
        out += [f"  {s}" for s in body]
        out.append("}")
        for alias in () if fn.fortran == "f08" else (f"{lower}_", f"{lower}__", lower, fn.name.upper(), f"p{lower}__", f"p{lower}",
                      f"P{fn.name.upper()}"):
            out.append(f"#pragma weak {alias} = {symbol}")
        return "\n".join(out) + "\n"


def main():
    description, output = sys.argv[1:3]
    try:
        functions, _ = mpi_api.load(description)
    except mpi_api.DescriptionError as e:
        sys.exit(f"gen_f77: {e}")
    chunks = [f"/* Generated by bindings/fortran/gen_f77.py from {os.path.basename(description)}: do not edit. */",
              "#include <stdlib.h>", "", '#include "fortran_binding.h"', ""]
    count = 0
    errors = []
    for fn in functions:
        if fn.fortran == "f08":
            if fn.name in F08_C_BY_HAND:
                continue
            try:
                chunks.append(Binding(fn).text())
                count += 1
            except Unsupported:
                pass  # not in mpi_f08 either (gen_f08.py lists it)
            continue
        if fn.fortran != "all":
            continue
        try:
            chunks.append(Binding(fn).text())
            count += 1
        except Unsupported as e:
            errors.append(f"{description}:{fn.line}: {fn.name}: {e} (mark it fortran=manual and write it by hand)")
    if errors:
        sys.exit("gen_f77: " + "\n".join(errors))
    with open(output + ".tmp", "w") as f:
        f.write("\n".join(chunks))
    os.replace(output + ".tmp", output)
    print(f"gen_f77: {count} bindings")


if __name__ == "__main__":
    main()
