! A program of MPICH's `use mpi` flavour: built with MPICH's mpif90 against MPICH's mpi.mod, whose
! interfaces name the same routines (mpi_allreduce_, ...) and common blocks as mpif.h, so it runs on
! Ferry's libmpifort (test abi_mpich_built_fortran_use_mpi_runs_on_ferry_np3).
program use_mpi
  use mpi
  implicit none
  integer :: ierr, rank, size, total, status(MPI_STATUS_SIZE)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: length

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  total = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= size * (size - 1) / 2) call fail('MPI_ALLREDUCE with MPI_IN_PLACE')
  call MPI_SENDRECV(rank, 1, MPI_INTEGER, mod(rank + 1, size), 0, total, 1, MPI_INTEGER, &
                    mod(rank + size - 1, size), 0, MPI_COMM_WORLD, status, ierr)
  if (total /= mod(rank + size - 1, size) .or. status(MPI_SOURCE) /= mod(rank + size - 1, size)) &
      call fail('MPI_SENDRECV')
  call MPI_COMM_GET_NAME(MPI_COMM_WORLD, name, length, ierr)
  if (name /= 'MPI_COMM_WORLD') call fail('MPI_COMM_GET_NAME')
  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'use_mpi: OK'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'use_mpi: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
