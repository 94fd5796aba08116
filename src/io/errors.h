// What a failed system call on a file means in MPI's terms (MPI-3.1
// §13.7, Table 13.3): errno mapped to an I/O error class, with a message
// that names what was attempted and the file. The API layer puts the MPI
// call's name in front ("MPI_File_open: cannot open '/x/y': ...").
#pragma once

#include <string>

#include "base/error.h"

namespace ferry::io {

// The MPI error class for an errno value: ENOENT is MPI_ERR_NO_SUCH_FILE,
// EEXIST MPI_ERR_FILE_EXISTS, EACCES/EPERM MPI_ERR_ACCESS, ENOSPC
// MPI_ERR_NO_SPACE, EDQUOT MPI_ERR_QUOTA, EROFS MPI_ERR_READ_ONLY,
// ENAMETOOLONG/ENOTDIR/EISDIR/ELOOP MPI_ERR_BAD_FILE, ETXTBSY/EBUSY
// MPI_ERR_FILE_IN_USE; anything else MPI_ERR_IO.
int error_class_of_errno(int err);

// An Err for errno `err` after `what` ("cannot open", "cannot write 4096
// bytes at offset 8192 of") failed on `path`:
//   "cannot open '/tmp/x': No such file or directory"
Err system_error(int err, const char* what, const std::string& path);

}  // namespace ferry::io
