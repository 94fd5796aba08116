! Attribute caching from Fortran with the mpi module: keyvals with copy and delete callbacks written in
! Fortran (called through MPI_COMM_DUP and MPI_COMM_FREE with INTEGER(KIND=MPI_ADDRESS_KIND) values
! and the program's extra_state), the predefined MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN /
! MPI_COMM_NULL_DELETE_FN, predefined attributes read as values (MPI_TAG_UB), MPI-1's MPI_ATTR_GET,
! and a generalized request whose query/free callbacks are Fortran subroutines.
module callback_log
  implicit none
  integer :: copies = 0, deletes = 0, frees = 0
  integer(kind=8) :: last_deleted = -1
end module

subroutine copy_plus_one(oldcomm, keyval, extra_state, value_in, value_out, flag, ierr)
  use callback_log
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
  logical :: flag
  copies = copies + 1
  value_out = value_in + 1 + extra_state
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine delete_logged(comm, keyval, value, extra_state, ierr)
  use callback_log
  use mpi
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
  deletes = deletes + 1
  last_deleted = value
  ierr = MPI_SUCCESS
end subroutine

subroutine query_fn(extra_state, status, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: status(MPI_STATUS_SIZE), ierr
  call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, int(extra_state), ierr)
  call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
  status(MPI_SOURCE) = MPI_UNDEFINED
  status(MPI_TAG) = MPI_UNDEFINED
  ierr = MPI_SUCCESS
end subroutine

subroutine free_fn(extra_state, ierr)
  use callback_log
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierr
  frees = frees + 1
  ierr = MPI_SUCCESS
end subroutine

subroutine cancel_fn(extra_state, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
end subroutine

program f_attributes
  use callback_log
  use mpi
  implicit none
  integer :: rank, ierr, keyval, keyval_dup, keyval_null, dup, request, count, old_keyval, old_value
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra, value, tag_ub
  logical :: flag
  external :: copy_plus_one, delete_logged, query_fn, free_fn, cancel_fn

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)

  ! Predefined attributes are values in Fortran.
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  if (.not. flag .or. tag_ub < 32767) call fail(rank, 'MPI_TAG_UB is not a value of at least 32767')
  call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, old_value, flag, ierr)
  if (.not. flag .or. old_value /= tag_ub) call fail(rank, 'MPI_ATTR_GET of MPI_TAG_UB')

  ! Fortran callbacks, with the program's extra_state.
  extra = 10
  call MPI_COMM_CREATE_KEYVAL(copy_plus_one, delete_logged, keyval, extra, ierr)
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval_dup, extra, ierr)
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, keyval_null, extra, ierr)
  value = 5000000000_MPI_ADDRESS_KIND
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, keyval, value, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, keyval_dup, value, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, keyval_null, value, ierr)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, keyval, value, flag, ierr)
  if (.not. flag .or. value /= 5000000000_MPI_ADDRESS_KIND) call fail(rank, 'MPI_COMM_GET_ATTR of a Fortran value')

  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  if (copies /= 1) call fail(rank, 'the Fortran copy callback was not called once')
  call MPI_COMM_GET_ATTR(dup, keyval, value, flag, ierr)
  if (.not. flag .or. value /= 5000000011_MPI_ADDRESS_KIND) call fail(rank, 'value copied by the Fortran callback')
  call MPI_COMM_GET_ATTR(dup, keyval_dup, value, flag, ierr)
  if (.not. flag .or. value /= 5000000000_MPI_ADDRESS_KIND) call fail(rank, 'value copied by MPI_COMM_DUP_FN')
  call MPI_COMM_GET_ATTR(dup, keyval_null, value, flag, ierr)
  if (flag) call fail(rank, 'MPI_COMM_NULL_COPY_FN copied the attribute')

  call MPI_COMM_FREE(dup, ierr)
  if (deletes /= 1 .or. last_deleted /= 5000000011_MPI_ADDRESS_KIND) &
      call fail(rank, 'the Fortran delete callback was not called with the value')
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, keyval, ierr)
  if (deletes /= 2) call fail(rank, 'MPI_COMM_DELETE_ATTR did not call the delete callback')
  call MPI_COMM_FREE_KEYVAL(keyval, ierr)
  if (keyval /= MPI_KEYVAL_INVALID) call fail(rank, 'MPI_COMM_FREE_KEYVAL did not reset the keyval')

  ! MPI-1's INTEGER attributes.
  call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, old_keyval, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, old_keyval, 42, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_ATTR_GET(dup, old_keyval, old_value, flag, ierr)
  if (.not. flag .or. old_value /= 42) call fail(rank, 'MPI_ATTR_GET after MPI_DUP_FN')
  call MPI_COMM_FREE(dup, ierr)
  call MPI_KEYVAL_FREE(old_keyval, ierr)

  ! A generalized request with Fortran callbacks.
  extra = 3
  call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, request, ierr)
  call MPI_GREQUEST_COMPLETE(request, ierr)
  call MPI_WAIT(request, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
  if (ierr /= MPI_SUCCESS .or. count /= 3 .or. frees /= 1 .or. request /= MPI_REQUEST_NULL) &
      call fail(rank, 'generalized request with Fortran callbacks')

  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'f_attributes: OK'
contains
  subroutine fail(rank, what)
    integer, intent(in) :: rank
    character(len=*), intent(in) :: what
    integer :: ierr
    print '(a,i0,a,a)', 'f_attributes: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
