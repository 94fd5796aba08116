! The large-count routines of mpi_f08 that take procedures (MPI-4.0 §19.2, A.4): MPI_Op_create_c,
! whose operator gets its length as INTEGER(KIND=MPI_COUNT_KIND) (MPI_User_function_c), used by
! MPI_Allreduce and by the large-count forms of MPI_Reduce_local and MPI_Reduce (in mpi_f08, the
! generic with an INTEGER(KIND=MPI_COUNT_KIND) count); and MPI_Register_datarep_c, whose conversion
! functions get their count so (MPI_Datarep_conversion_function_c), used by a file view: what is
! written is converted (XOR with extra_state) in the file, and converted back when read. Not in
! tests/abi's runs with MPICH's mpif90: Debian's MPICH 4.0 has neither routine in its mpi_f08.
module f08_large_callbacks_procedures
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer, parameter :: n = 5
  ! What the procedures saw: calls, and the calls whose arguments were not the expected ones.
  integer :: op_calls = 0, op_wrong = 0, reads = 0, writes = 0, conversions_wrong = 0
contains
  ! Elementwise maximum of INTEGERs; every call here is on the whole of n elements.
  subroutine max_c(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    op_calls = op_calls + 1
    if (len /= n .or. datatype /= MPI_INTEGER) then
      op_wrong = op_wrong + 1
      return
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(a, b)
  end subroutine

  ! What both conversion functions check: a large count, its position within the n INTEGERs of the
  ! user buffer, and the datatype of the view (counted in conversions_wrong, refused as MPI_ERR_TYPE).
  integer function conversion_arguments(datatype, count, position)
    type(MPI_Datatype), intent(in) :: datatype
    integer(kind=MPI_COUNT_KIND), intent(in) :: count
    integer(kind=MPI_OFFSET_KIND), intent(in) :: position
    conversion_arguments = MPI_SUCCESS
    if (count < 1 .or. count > n .or. position < 0 .or. position + count > n .or. datatype /= MPI_INTEGER) then
      conversions_wrong = conversions_wrong + 1
      conversion_arguments = MPI_ERR_TYPE
    end if
  end function

  ! The "f08_large_xor" representation: INTEGERs XORed with extra_state in the file.
  subroutine xor_write_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer, pointer :: user(:), file(:)
    writes = writes + 1
    ierror = conversion_arguments(datatype, count, position)
    if (ierror /= MPI_SUCCESS) return
    call c_f_pointer(userbuf, user, [position + count])
    call c_f_pointer(filebuf, file, [count])
    file = ieor(user(position + 1:position + count), int(extra_state))
  end subroutine

  subroutine xor_read_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    integer, pointer :: user(:), file(:)
    reads = reads + 1
    ierror = conversion_arguments(datatype, count, position)
    if (ierror /= MPI_SUCCESS) return
    call c_f_pointer(userbuf, user, [position + count])
    call c_f_pointer(filebuf, file, [count])
    user(position + 1:position + count) = ieor(file, int(extra_state))
  end subroutine

  subroutine same_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror, bytes
    call MPI_Type_size(datatype, bytes, ierror)
    extent = bytes
  end subroutine
end module

program f08_large_callbacks
  use f08_large_callbacks_procedures
  implicit none
  integer, parameter :: mask = 1431655765  ! 0x55555555
  integer :: rank, size, r, i, ierr, values(n), expected(n), result(n), raw(n), back(n), plain_calls
  integer(kind=MPI_ADDRESS_KIND) :: extra
  type(MPI_Op) :: op
  type(MPI_File) :: fh
  type(MPI_Status) :: status
  character(len=256) :: path
  character(len=200) :: tmp
  logical :: commute

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)

  ! A pattern whose elementwise maximum over the ranks comes from different ranks.
  values = [(mod(rank * 7 + i * 3, 11) - 5, i = 1, n)]
  expected = values
  do r = 0, size - 1
    expected = max(expected, [(mod(r * 7 + i * 3, 11) - 5, i = 1, n)])
  end do

  call MPI_Op_create_c(max_c, .true., op)
  call MPI_Op_commutative(op, commute)
  if (.not. commute) call fail('MPI_Op_create_c lost commute')

  ! MPI_Reduce_local calls the operator once, on every rank.
  result = [(100 - i, i = 1, n)]
  call MPI_Reduce_local(values, result, int(n, MPI_COUNT_KIND), MPI_INTEGER, op)
  if (op_calls /= 1 .or. op_wrong /= 0 .or. any(result /= [(100 - i, i = 1, n)])) &
      call fail('MPI_Reduce_local (large count) with an MPI_Op_create_c operator')
  result = -100
  call MPI_Reduce_local(values, result, int(n, MPI_COUNT_KIND), MPI_INTEGER, op)
  if (op_calls /= 2 .or. op_wrong /= 0 .or. any(result /= values)) &
      call fail('MPI_Reduce_local (large count): the operator''s result')

  ! The default-count collective and the large-count one take the same operator.
  call MPI_Allreduce(values, result, n, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (any(result /= expected)) call fail('MPI_Allreduce with an MPI_Op_create_c operator')
  result = 0
  call MPI_Reduce(values, result, int(n, MPI_COUNT_KIND), MPI_INTEGER, op, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(result /= expected)) call fail('MPI_Reduce (large count) with an MPI_Op_create_c operator')
  if (op_wrong /= 0) call fail('the MPI_User_function_c got a wrong length or datatype')
  call MPI_Allreduce(op_calls, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (size > 1 .and. i <= 2 * size) call fail('the MPI_User_function_c was not called by the collectives')
  call MPI_Op_free(op)
  if (op /= MPI_OP_NULL) call fail('MPI_Op_free did not set MPI_OP_NULL')

  ! A representation with large-count conversion functions, and one with MPI_CONVERSION_FN_NULL_C.
  extra = mask
  call MPI_Register_datarep_c('f08_large_xor', xor_read_c, xor_write_c, same_extent, extra, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Register_datarep_c')
  call MPI_Register_datarep_c('f08_large_none', MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, &
                              same_extent, extra, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Register_datarep_c with MPI_CONVERSION_FN_NULL_C')

  if (rank == 0) then
    call get_environment_variable('TMPDIR', tmp)
    if (len_trim(tmp) == 0) tmp = '/tmp'
    write (path, '(a, a, i0, a)') trim(tmp), '/ferry-f08_large_callbacks-', getpid(), '.dat'
  end if
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh)
  ! Each rank's n INTEGERs at its own place: written converted, read raw (native) and converted back.
  call MPI_File_set_view(fh, int(rank * n * 4, MPI_OFFSET_KIND), MPI_INTEGER, MPI_INTEGER, 'f08_large_xor', &
                         MPI_INFO_NULL)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, values, n, MPI_INTEGER, status)
  if (writes < 1) call fail('the write conversion of MPI_Register_datarep_c was not called')
  call MPI_File_sync(fh)
  call MPI_File_set_view(fh, int(rank * n * 4, MPI_OFFSET_KIND), MPI_INTEGER, MPI_INTEGER, 'native', &
                         MPI_INFO_NULL)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, n, MPI_INTEGER, status)
  if (any(raw /= ieor(values, mask))) call fail('the file does not hold the converted INTEGERs')
  call MPI_File_set_view(fh, int(rank * n * 4, MPI_OFFSET_KIND), MPI_INTEGER, MPI_INTEGER, 'f08_large_xor', &
                         MPI_INFO_NULL)
  back = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, n, MPI_INTEGER, status)
  if (reads < 1) call fail('the read conversion of MPI_Register_datarep_c was not called')
  if (any(back /= values)) call fail('reading through MPI_Register_datarep_c''s conversion')
  if (conversions_wrong /= 0) call fail('a conversion function got a wrong count, position or datatype')
  ! MPI_CONVERSION_FN_NULL_C: the file holds the INTEGERs as they are.
  plain_calls = reads + writes
  call MPI_File_set_view(fh, int(rank * n * 4, MPI_OFFSET_KIND), MPI_INTEGER, MPI_INTEGER, 'f08_large_none', &
                         MPI_INFO_NULL)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, values, n, MPI_INTEGER, status)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, n, MPI_INTEGER, status)
  if (any(back /= values) .or. reads + writes /= plain_calls) call fail('MPI_CONVERSION_FN_NULL_C')
  call MPI_File_close(fh)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'f08_large_callbacks: OK'
  call MPI_Finalize()

contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a)', 'f08_large_callbacks: FAILED on rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
