! fortran_call: what the Fortran binding adds to a call (issue 28: within 5 ns). One process times
! MPI_SEND of 8 bytes to MPI_PROC_NULL through the Fortran binding (include 'mpif.h': mpi_send_)
! and the same call made straight to the C function MPI_Send (BIND(C), arguments by value, which
! MPICH's ABI allows: a handle is a C int), in alternating rounds of 10^5 calls, and keeps each
! one's fastest round, so that a noisy neighbour costs rounds, not the figure.
!
!   mpirun -n 1 fortran_call [rounds]        (default 200)
!
! Output: '#' header lines, then: fortran_ns c_ns overhead_ns (per call).
program fortran_call
  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_loc
  implicit none
  include 'mpif.h'
  interface
    integer(c_int) function c_mpi_send(buf, count, datatype, dest, tag, comm) bind(C, name='MPI_Send')
      import :: c_int, c_ptr
      type(c_ptr), value :: buf
      integer(c_int), value :: count, datatype, dest, tag, comm
    end function
  end interface
  integer, parameter :: calls = 100000
  integer :: ierr, i, round, rounds, rc
  integer(kind=8), target :: buf
  double precision :: t0, best_f, best_c
  character(len=16) :: arg

  call MPI_INIT(ierr)
  rounds = 200
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  buf = 0
  best_f = huge(1d0)
  best_c = huge(1d0)
  do round = 1, rounds
    t0 = MPI_WTIME()
    do i = 1, calls
      call MPI_SEND(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
    end do
    best_f = min(best_f, MPI_WTIME() - t0)
    t0 = MPI_WTIME()
    do i = 1, calls
      rc = c_mpi_send(c_loc(buf), 8, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD)
    end do
    best_c = min(best_c, MPI_WTIME() - t0)
  end do
  print '(a)', '# fortran_call: MPI_SEND(8 bytes, MPI_PROC_NULL) through the Fortran binding and straight to C'
  print '(a)', '# fortran_ns c_ns overhead_ns'
  print '(3f10.2)', best_f / calls * 1d9, best_c / calls * 1d9, (best_f - best_c) / calls * 1d9
  call MPI_FINALIZE(ierr)
end program
