! CHARACTER arguments and error handling from Fortran with mpif.h: names and info values go in
! without their trailing blanks and come back blank-padded (hidden lengths), output strings never
! run past the CHARACTER variable; MPI_ERRORS_RETURN returns codes, and an error handler written in
! Fortran (MPI_COMM_CREATE_ERRHANDLER) is called with the communicator and the code.
module handler_state
  implicit none
  integer :: calls = 0, last_comm = -1, last_code = -1
end module

subroutine record_error(comm, code)
  use handler_state
  implicit none
  integer :: comm, code
  calls = calls + 1
  last_comm = comm
  last_code = code
end subroutine

program f_strings_errors
  use handler_state
  implicit none
  include 'mpif.h'
  integer :: rank, ierr, comm, length, info, nkeys, class, handler, code, errclass
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=4) :: short
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=MPI_MAX_ERROR_STRING) :: message
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  logical :: flag
  integer :: buffer(1)
  external :: record_error

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)

  ! Names: trailing blanks are not part of the name; the result is blank-padded.
  call MPI_COMM_GET_NAME(MPI_COMM_WORLD, name, length, ierr)
  if (name /= 'MPI_COMM_WORLD' .or. length /= 14) call fail(rank, 'name of MPI_COMM_WORLD: '//trim(name))
  call MPI_COMM_DUP(MPI_COMM_WORLD, comm, ierr)
  call MPI_COMM_SET_NAME(comm, 'ocean model   ', ierr)
  name = repeat('x', len(name))
  call MPI_COMM_GET_NAME(comm, name, length, ierr)
  if (length /= 11 .or. name(1:11) /= 'ocean model' .or. name(12:) /= ' ') &
      call fail(rank, 'MPI_COMM_GET_NAME after MPI_COMM_SET_NAME: '//name(1:20))
  call MPI_COMM_GET_NAME(comm, short, length, ierr)
  if (short /= 'ocea') call fail(rank, 'MPI_COMM_GET_NAME into CHARACTER(4): '//short)

  ! Info keys and values.
  call MPI_INFO_CREATE(info, ierr)
  call MPI_INFO_SET(info, 'color', 'deep blue  ', ierr)
  call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
  call MPI_INFO_GET_NTHKEY(info, 0, key, ierr)
  if (nkeys /= 1 .or. key /= 'color') call fail(rank, 'MPI_INFO_GET_NTHKEY: '//trim(key))
  call MPI_INFO_GET_VALUELEN(info, 'color', length, flag, ierr)
  if (.not. flag .or. length /= 9) call fail(rank, 'MPI_INFO_GET_VALUELEN')
  value = repeat('x', len(value))
  call MPI_INFO_GET(info, 'color', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (.not. flag .or. value /= 'deep blue') call fail(rank, 'MPI_INFO_GET: '//value(1:20))
  value = 'untouched'
  call MPI_INFO_GET(info, 'shape', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (flag .or. ierr /= MPI_SUCCESS) call fail(rank, 'MPI_INFO_GET of a missing key')
  if (value /= 'untouched') call fail(rank, 'MPI_INFO_GET of a missing key changed the value')
  ! MPI-4.0 §10: Fortran's info keys and values lose leading blanks too.
  call MPI_INFO_SET(info, '  size', '  large ', ierr)
  call MPI_INFO_GET(info, 'size', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (.not. flag .or. value /= 'large') call fail(rank, 'MPI_INFO_SET/GET with leading blanks: '//value(1:20))
  ! MPI_INFO_GET_STRING with room for 2 characters: those, then blanks to the variable's end.
  value = 'canary canary'
  length = 2
  call MPI_INFO_GET_STRING(info, 'color', length, value, flag, ierr)
  if (.not. flag .or. length /= 9 .or. value /= 'de') call fail(rank, 'MPI_INFO_GET_STRING truncated: '//value(1:20))
  call MPI_INFO_FREE(info, ierr)

  call MPI_GET_PROCESSOR_NAME(host, length, ierr)
  if (length <= 0 .or. length > MPI_MAX_PROCESSOR_NAME .or. host(length+1:) /= ' ') &
      call fail(rank, 'MPI_GET_PROCESSOR_NAME')

  ! MPI_ERRORS_RETURN: a bad count comes back as a code of class MPI_ERR_COUNT.
  call MPI_COMM_SET_ERRHANDLER(comm, MPI_ERRORS_RETURN, ierr)
  call MPI_SEND(buffer, -1, MPI_INTEGER, 0, 0, comm, code)
  call MPI_ERROR_CLASS(code, class, ierr)
  if (code == MPI_SUCCESS .or. class /= MPI_ERR_COUNT) call fail(rank, 'MPI_ERRORS_RETURN: no MPI_ERR_COUNT')
  call MPI_ERROR_STRING(code, message, length, ierr)
  if (length <= 0 .or. message(length+1:) /= ' ') call fail(rank, 'MPI_ERROR_STRING')

  ! A Fortran error handler.
  call MPI_COMM_CREATE_ERRHANDLER(record_error, handler, ierr)
  call MPI_COMM_SET_ERRHANDLER(comm, handler, ierr)
  call MPI_ERRHANDLER_FREE(handler, ierr)
  call MPI_SEND(buffer, -1, MPI_INTEGER, 0, 0, comm, code)
  call MPI_ERROR_CLASS(last_code, class, ierr)
  if (calls /= 1 .or. last_comm /= comm .or. class /= MPI_ERR_COUNT .or. code /= last_code) &
      call fail(rank, 'Fortran error handler not called with the communicator and the code')
  call MPI_COMM_CALL_ERRHANDLER(comm, MPI_ERR_OTHER, ierr)
  if (calls /= 2 .or. last_code /= MPI_ERR_OTHER) call fail(rank, 'MPI_COMM_CALL_ERRHANDLER')

  ! A class and code of the program's own, with a message given in Fortran.
  call MPI_ADD_ERROR_CLASS(errclass, ierr)
  call MPI_ADD_ERROR_CODE(errclass, code, ierr)
  call MPI_ADD_ERROR_STRING(code, 'the ocean boiled   ', ierr)
  call MPI_ERROR_STRING(code, message, length, ierr)
  if (message /= 'the ocean boiled' .or. length /= 16) call fail(rank, 'MPI_ADD_ERROR_STRING: '//message(1:30))

  call MPI_COMM_FREE(comm, ierr)
  if (comm /= MPI_COMM_NULL) call fail(rank, 'MPI_COMM_FREE did not set MPI_COMM_NULL')
  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'f_strings_errors: OK'
contains
  subroutine fail(rank, what)
    integer, intent(in) :: rank
    character(len=*), intent(in) :: what
    integer :: ierr
    print '(a,i0,a,a)', 'f_strings_errors: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
