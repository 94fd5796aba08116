! Programs that compile with MPICH's `use mpi` compile with Ferry's: the routines with choice buffers
! have no explicit interface there (gen_mpi_module.py), so a scalar may stand for an array argument
! (MPICH's f90/coll/alltoallvf90 passes 0 for counts it does not use) and a program may define such a
! routine itself in a unit that uses the module (a profiling layer, f90/profile/profile1f90). The
! routines without choice buffers keep their interfaces, and MPI_SIZEOF its generic.
module send_log
  implicit none
  integer :: intercepted = 0
end module

! A profiling layer's MPI_SEND, in a unit that uses the module.
subroutine MPI_SEND(buf, count, datatype, dest, tag, comm, ierr)
  use mpi
  use send_log
  implicit none
  integer :: buf(*), count, datatype, dest, tag, comm, ierr
  intercepted = intercepted + 1
  call PMPI_SEND(buf, count, datatype, dest, tag, comm, ierr)
end subroutine

program f_use_mpi_like_mpich
  use mpi
  use send_log
  implicit none
  integer :: ierr, rank, size, i, bytes
  integer :: sendbuf(1), recvbuf(1), status(MPI_STATUS_SIZE)
  integer, allocatable :: counts(:), displs(:), recvs(:)
  double precision :: x

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)

  ! Send to self through the program's own MPI_SEND.
  sendbuf(1) = rank + 7
  call MPI_SEND(sendbuf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
  call MPI_SENDRECV(sendbuf, 1, MPI_INTEGER, rank, 1, recvbuf, 1, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, &
                    status, ierr)
  if (intercepted /= 1 .or. recvbuf(1) /= rank + 7) call fail('the program''s own MPI_SEND')

  ! MPI_ALLTOALLV with MPI_IN_PLACE: the send counts, displacements and type are ignored, and a
  ! scalar 0 stands for them, as MPICH's tests pass.
  allocate(counts(size), displs(size), recvs(size))
  counts = 1
  displs = [(i - 1, i = 1, size)]
  recvs = rank
  call MPI_ALLTOALLV(MPI_IN_PLACE, 0, 0, MPI_DATATYPE_NULL, recvs, counts, displs, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. any(recvs /= [(i - 1, i = 1, size)])) call fail('MPI_ALLTOALLV in place')

  call MPI_SIZEOF(x, bytes, ierr)
  if (bytes /= 8) call fail('MPI_SIZEOF')

  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'f_use_mpi_like_mpich: OK'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: ierr
    print '(a,i0,a,a)', 'f_use_mpi_like_mpich: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
