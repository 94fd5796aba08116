program mpi_check_fortran
  use mpi
  implicit none
  integer :: ierr, rank
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_FINALIZE(ierr)
end program
