#include "io/errors.h"

#include <cerrno>
#include <cstring>

#include "mpi.h"

namespace ferry::io {

int error_class_of_errno(int err) {
  switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
    case EBADF: return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    default: return MPI_ERR_IO;
  }
}

Err system_error(int err, const char* what, const std::string& path) {
  return fail(error_class_of_errno(err), "%s '%s': %s", what, path.c_str(), std::strerror(err));
}

}  // namespace ferry::io
