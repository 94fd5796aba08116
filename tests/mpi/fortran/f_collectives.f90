! Collectives from Fortran with the mpi module (explicit interfaces): MPI_IN_PLACE and MPI_BOTTOM (addresses in the common block
! /MPIPRIV1/ that the bindings turn into C's sentinels), LOGICAL reductions (MPI_LOGICAL with
! MPI_LAND/MPI_LOR), a reduction operator written in Fortran (MPI_OP_CREATE), and MPI_SIZEOF with
! MPI_TYPE_MATCH_SIZE (MPI-4.0 §19.1.9).
program f_collectives
  use mpi
  implicit none
  integer :: rank, size, ierr, i, sum_type, op
  integer :: values(4), total(4), gathered(64)
  integer(kind=MPI_ADDRESS_KIND) :: address
  logical :: mine, every, some
  double precision :: x(3)
  external :: checked_sum

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)

  ! MPI_SIZEOF (a generic of the mpi module) and the datatype of that size.
  call MPI_SIZEOF(x, i, ierr)
  if (ierr /= MPI_SUCCESS .or. i /= 8) call fail(rank, 'MPI_SIZEOF of DOUBLE PRECISION')
  call MPI_SIZEOF(values(1), i, ierr)
  if (i /= 4) call fail(rank, 'MPI_SIZEOF of INTEGER')
  call MPI_SIZEOF(mine, i, ierr)
  if (i /= 4) call fail(rank, 'MPI_SIZEOF of LOGICAL')
  call MPI_SIZEOF(address, i, ierr)
  if (i /= 8) call fail(rank, 'MPI_SIZEOF of INTEGER(MPI_ADDRESS_KIND)')
  call MPI_TYPE_MATCH_SIZE(MPI_TYPECLASS_REAL, 8, op, ierr)
  call MPI_TYPE_SIZE(op, i, ierr)
  if (ierr /= MPI_SUCCESS .or. i /= 8) call fail(rank, 'MPI_TYPE_MATCH_SIZE(MPI_TYPECLASS_REAL, 8)')
  call MPI_TYPE_MATCH_SIZE(MPI_TYPECLASS_INTEGER, 4, op, ierr)
  call MPI_TYPE_SIZE(op, i, ierr)
  if (ierr /= MPI_SUCCESS .or. i /= 4) call fail(rank, 'MPI_TYPE_MATCH_SIZE(MPI_TYPECLASS_INTEGER, 4)')

  ! MPI_ALLREDUCE, then the same in place.
  values = [(rank + i, i = 1, 4)]
  call MPI_ALLREDUCE(values, total, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 4
    if (total(i) /= size * i + size * (size - 1) / 2) call fail(rank, 'MPI_ALLREDUCE')
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, values, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any_differ(values, total)) call fail(rank, 'MPI_ALLREDUCE with MPI_IN_PLACE')

  ! MPI_GATHER in place at the root.
  gathered = -1
  gathered(rank + 1) = rank * 10
  if (rank == 0) then
    call MPI_GATHER(MPI_IN_PLACE, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    do i = 1, size
      if (gathered(i) /= (i - 1) * 10) call fail(rank, 'MPI_GATHER with MPI_IN_PLACE')
    end do
  else
    call MPI_GATHER(gathered(rank + 1), 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if

  ! MPI_BOTTOM: a datatype built on the absolute address of x, broadcast from MPI_BOTTOM.
  x = rank
  if (rank == 0) x = [1.5d0, 2.5d0, 3.5d0]
  call MPI_GET_ADDRESS(x, address, ierr)
  call MPI_TYPE_CREATE_HINDEXED(1, [3], [address], MPI_DOUBLE_PRECISION, sum_type, ierr)
  call MPI_TYPE_COMMIT(sum_type, ierr)
  call MPI_BCAST(MPI_BOTTOM, 1, sum_type, 0, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. x(1) /= 1.5d0 .or. x(3) /= 3.5d0) call fail(rank, 'MPI_BCAST from MPI_BOTTOM')
  call MPI_TYPE_FREE(sum_type, ierr)

  ! Fortran LOGICAL in reductions.
  mine = rank == 0
  call MPI_ALLREDUCE(mine, every, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(mine, some, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. some .or. (every .neqv. (size == 1))) call fail(rank, 'LOGICAL reductions')

  ! A Fortran reduction operator (a sum that checks its LEN and DATATYPE arguments).
  call MPI_OP_CREATE(checked_sum, .true., op, ierr)
  values = rank + 1
  call MPI_ALLREDUCE(values, total, 4, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. total(4) /= size * (size + 1) / 2) call fail(rank, 'MPI_OP_CREATE operator')
  call MPI_OP_FREE(op, ierr)
  if (op /= MPI_OP_NULL) call fail(rank, 'MPI_OP_FREE did not set MPI_OP_NULL')

  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'f_collectives: OK'
contains
  logical function any_differ(a, b)
    integer, intent(in) :: a(:), b(:)
    any_differ = .not. all(a == b)
  end function
  subroutine fail(rank, what)
    integer, intent(in) :: rank
    character(len=*), intent(in) :: what
    integer :: ierr
    print '(a,i0,a,a)', 'f_collectives: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program

! MPI-4.0 §6.9.5: SUBROUTINE USER_FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE). A wrong LEN or
! DATATYPE spoils the sum.
subroutine checked_sum(invec, inoutvec, len, datatype)
  use mpi
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = invec(i) + inoutvec(i)
  end do
  if (len /= 4 .or. datatype /= MPI_INTEGER) inoutvec = -1000
end subroutine
