#!/usr/bin/env python3
"""Checks a C header's MPI prototypes against src/api/mpi_api.txt (test abi_mpi_h_matches_description).

  check_mpi_h.py <mpi.h> <mpi_api.txt>
  check_mpi_h.py --self-test <mpi.h> <mpi_api.txt>

Every function the header declares, MPI_X and its profiling twin PMPI_X, must be described, with the
same return type and the same parameters (C types and names, in order); every described function must
be declared, both ways. Prints each difference and exits 1 if there is one, so that the header and the
description cannot drift apart: the Fortran bindings are generated from the description and call the C
functions the header declares. --self-test shows that the check catches what it must: it changes a
copy of the header (a parameter's type, a parameter's name, a missing PMPI_ twin, an undescribed
function) and fails unless each change is reported.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_api  # noqa: E402

DECL = re.compile(r"(?:^|[;{}])\s*((?:const\s+)?[A-Za-z_][A-Za-z0-9_]*)\s+(P?MPIX?_[A-Za-z0-9_]+)\s*\(([^)]*)\)\s*(?=;)")


def header_functions(path, text=None):
    if text is None:
        text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)
    text = text.replace('extern "C" {', " ")
    found = {}
    for ret, name, params in DECL.findall(text):
        params = " ".join(params.split())
        decls = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
        found[name] = (ret, [mpi_api.split_declaration(d) for d in decls])
    return found


def differences(header, description, text=None):
    functions, _ = mpi_api.load(description)
    declared = header_functions(header, text)
    problems = []
    described = set()
    for f in functions:
        want = (f.returns, [(p.ctype, p.name) for p in f.params])
        for name in (f.name, "P" + f.name):
            described.add(name)
            if name not in declared:
                problems.append(f"{name}: described ({description}:{f.line}) but not declared in {header}")
                continue
            ret, params = declared[name]
            if ret != want[0]:
                problems.append(f"{name}: returns {ret} in the header, {want[0]} in the description")
            if len(params) != len(want[1]):
                problems.append(f"{name}: {len(params)} parameters in the header, {len(want[1])} in the description")
                continue
            for i, ((htype, hname), (dtype, dname)) in enumerate(zip(params, want[1]), 1):
                if htype != dtype or hname != dname:
                    problems.append(f"{name}: parameter {i} is '{htype} {hname}' in the header, "
                                    f"'{dtype} {dname}' in the description")
    for name in sorted(set(declared) - described):
        problems.append(f"{name}: declared in {header} but not described in {description}")
    return functions, declared, problems


def self_test(header, description):
    text = open(header).read()
    changes = [
        ("int MPI_Send(const void *buf, int count,", "int MPI_Send(const void *buf, long count,",
         "MPI_Send: parameter 2 is 'long count'"),
        ("int MPI_Recv(void *buf, int count,", "int MPI_Recv(void *buf, int n,", "MPI_Recv: parameter 2 is 'int n'"),
        ("int PMPI_Barrier(MPI_Comm comm);", "", "PMPI_Barrier: described"),
        ("int MPI_Barrier(MPI_Comm comm);", "int MPI_Barrier(MPI_Comm comm);\nint MPI_Undescribed(int x);",
         "MPI_Undescribed: declared"),
    ]
    failures = 0
    for old, new, expected in changes:
        if old not in text:
            print(f"self-test: the header no longer has '{old}'; update the self-test")
            failures += 1
            continue
        _, _, problems = differences(header, description, text.replace(old, new, 1))
        if not any(p.startswith(expected) for p in problems):
            print(f"self-test: changing '{old}' was not reported as '{expected}...': {problems}")
            failures += 1
    print(f"check_mpi_h self-test: {len(changes) - failures} of {len(changes)} changes caught")
    return 1 if failures else 0


def main():
    args = sys.argv[1:]
    testing = args[:1] == ["--self-test"]
    if testing:
        args = args[1:]
    header, description = args[:2]
    try:
        if testing:
            return self_test(header, description)
        functions, declared, problems = differences(header, description)
    except mpi_api.DescriptionError as e:
        print(f"check_mpi_h: {e}")
        return 1
    for p in problems:
        print(p)
    print(f"check_mpi_h: {len(functions)} functions described, {len(declared)} declared "
          f"(with the PMPI_ twins); {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
