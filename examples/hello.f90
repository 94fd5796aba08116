! hello: every rank says who it is and where it runs, as hello.c does, in
! Fortran 2008 with the mpi_f08 module (handles are TYPE(MPI_Comm), ...,
! and the IERROR argument may be left out).
!
!   mpifort -o hello_f hello.f90
!   mpirun -n 4 ./hello_f
program hello
  use mpi_f08
  implicit none
  integer :: rank, size, name_len
  character(len=MPI_MAX_PROCESSOR_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Get_processor_name(name, name_len)

  print '(a, i0, a, i0, a, a)', 'Hello from rank ', rank, ' of ', size, ' on ', name(1:name_len)

  call MPI_Finalize()
end program hello
