! Procedures written in Fortran and passed to mpi_f08 (MPI-4.0 §19.1.2 and A.3): a reduction
! operator (MPI_User_function: TYPE(C_PTR) by value, the rest by reference), an error handler,
! attribute copy/delete callbacks and mpi_f08's predefined MPI_COMM_DUP_FN/MPI_COMM_NULL_COPY_FN,
! a data representation with MPI_CONVERSION_FN_NULL; and MPI_Type_match_size, MPI_Sizeof.
module f08_callbacks_procedures
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer :: errors_seen = 0, last_error = 0, deletes = 0, copies = 0
contains
  ! Elementwise maximum of absolute values, on INTEGERs.
  subroutine absmax(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    integer :: i
    if (datatype /= MPI_INTEGER) stop 'absmax: not MPI_INTEGER'
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    do i = 1, len
      b(i) = max(abs(a(i)), abs(b(i)))
    end do
  end subroutine

  subroutine record_error(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    errors_seen = errors_seen + 1
    last_error = error_code
  end subroutine

  subroutine copy_twice(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    attribute_val_out = attribute_val_in * 2 + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

  subroutine count_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine

  subroutine file_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    call MPI_Type_get_extent(datatype, extra_state, extent, ierror)
  end subroutine
end module

program f08_callbacks
  use f08_callbacks_procedures
  implicit none
  integer :: rank, size, i, ierr, values(3), result(3), keyval, keyval_dup, keyval_none, bytes
  integer(kind=MPI_ADDRESS_KIND) :: value, extra
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: handler
  type(MPI_Comm) :: dup, dup2
  type(MPI_Datatype) :: matched
  logical :: flag
  real(kind=8) :: r8
  complex :: z

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)

  ! A reduction operator written in Fortran.
  values = [-(rank + 1), rank, 7]
  call MPI_Op_create(absmax, .true., op)
  call MPI_Allreduce(values, result, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
  ! One rank: the operator is never called.
  if (size > 1 .and. any(result /= [size, size - 1, 7]) .or. size == 1 .and. any(result /= values)) &
      call fail('MPI_Allreduce with a Fortran operator')
  call MPI_Op_free(op)
  if (op /= MPI_OP_NULL) call fail('MPI_Op_free did not set MPI_OP_NULL')

  ! An error handler written in Fortran, called with the communicator and the code.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(record_error, handler)
  call MPI_Comm_set_errhandler(dup, handler)
  call MPI_Errhandler_free(handler)
  call MPI_Send(values, 1, MPI_INTEGER, size + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, i)
  if (errors_seen /= 1 .or. i /= MPI_ERR_RANK) call fail('the Fortran error handler was not called')
  call MPI_Error_class(last_error, i)
  if (i /= MPI_ERR_RANK) call fail('the Fortran error handler got the wrong code')

  ! Attributes: a Fortran copy callback with extra_state, mpi_f08's MPI_COMM_DUP_FN and
  ! MPI_COMM_NULL_COPY_FN; delete callbacks counted.
  extra = 1
  call MPI_Comm_create_keyval(copy_twice, count_delete, keyval, extra)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval_dup, extra)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, keyval_none, extra)
  call MPI_Comm_set_attr(dup, keyval, 20_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, keyval_dup, 5000000000_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, keyval_none, 3_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, keyval, value, flag)
  if (.not. flag .or. value /= 41 .or. copies /= 1) call fail('Fortran copy callback')
  call MPI_Comm_get_attr(dup2, keyval_dup, value, flag)
  if (.not. flag .or. value /= 5000000000_MPI_ADDRESS_KIND) call fail('MPI_COMM_DUP_FN of mpi_f08')
  call MPI_Comm_get_attr(dup2, keyval_none, value, flag)
  if (flag) call fail('MPI_COMM_NULL_COPY_FN of mpi_f08 copied the attribute')
  call MPI_Comm_free(dup2)
  if (deletes /= 1) call fail('Fortran delete callback on MPI_Comm_free')
  call MPI_Comm_free_keyval(keyval)
  call MPI_Comm_free_keyval(keyval_dup)
  call MPI_Comm_free_keyval(keyval_none)
  call MPI_Comm_free(dup)
  if (deletes /= 2) call fail('Fortran delete callback')

  ! A data representation whose conversions are MPI_CONVERSION_FN_NULL; registering the name
  ! twice is MPI_ERR_DUP_DATAREP.
  extra = 0
  call MPI_Register_datarep('f08_callbacks_rep', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            file_extent, extra, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Register_datarep')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Register_datarep('f08_callbacks_rep', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            file_extent, extra, ierr)
  call MPI_Error_class(ierr, i)
  if (i /= MPI_ERR_DUP_DATAREP) call fail('registering a data representation twice')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! MPI_Sizeof and MPI_Type_match_size (MPI-4.0 §19.1.9).
  call MPI_Sizeof(r8, bytes)
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, bytes, matched)
  call MPI_Type_size(matched, i)
  if (bytes /= 8 .or. i /= 8) call fail('MPI_Sizeof/MPI_Type_match_size of REAL(8)')
  call MPI_Sizeof(z, bytes)
  call MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, bytes, matched)
  call MPI_Type_size(matched, i)
  if (bytes /= 8 .or. i /= 8) call fail('MPI_Sizeof/MPI_Type_match_size of COMPLEX')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'f08_callbacks: OK'
  call MPI_Finalize()

contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a)', 'f08_callbacks: FAILED on rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
