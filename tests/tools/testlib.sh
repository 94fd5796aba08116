# Helpers shared by the shell tests in tests/tools (sourced, POSIX sh): a
# scratch directory that is removed on exit, and checks that say what was
# expected and what came instead.
set -u

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ferry-test.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
# Physical path, so that comparisons with `cd -P` results hold.
scratch=$(cd -P -- "$scratch" && pwd)

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# expect_words TEXT WORD...: every WORD is a whole space-separated word of TEXT.
expect_words() {
  _text=$1
  shift
  for _word do
    case " $_text " in
      *" $_word "*) ;;
      *) fail "expected '$_word' in: $_text" ;;
    esac
  done
}

# expect_no_words TEXT WORD...: no WORD is a word of TEXT.
expect_no_words() {
  _text=$1
  shift
  for _word do
    case " $_text " in
      *" $_word "*) fail "did not expect '$_word' in: $_text" ;;
    esac
  done
}

# runpath FILE: the RUNPATH (or RPATH) entries of an ELF file, one per line.
runpath() {
  readelf -d "$1" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' | tr ':' '\n'
}

# resolved_lib PROGRAM NAME: the path the dynamic loader picks for NAME
# (e.g. libmpi.so.12) when PROGRAM starts without LD_LIBRARY_PATH.
resolved_lib() {
  env -u LD_LIBRARY_PATH ldd "$1" | sed -n "s|^[[:space:]]*$2 => \(.*\) (0x[0-9a-f]*)\$|\1|p"
}
