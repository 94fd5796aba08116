! The mpi_f08 bindings written by hand: those whose Fortran arguments are not mpif.h's.
!
! MPI_Buffer_detach: in mpi_f08 the detached buffer's address comes back as TYPE(C_PTR) (MPI-4.0
! §3.6.1), where mpif.h's choice argument cannot hold it; so these call the C function.

subroutine PMPIR_Buffer_detach_f08(buffer_addr, size, ierror)
  use, intrinsic :: iso_c_binding, only : c_ptr, c_int
  implicit none
  type(c_ptr), intent(out) :: buffer_addr
  integer, intent(out) :: size
  integer, optional, intent(out) :: ierror
  interface
    function detach(buffer_addr, size) bind(C, name='MPI_Buffer_detach') result(ierr)
      import :: c_ptr, c_int
      type(c_ptr) :: buffer_addr
      integer(c_int) :: size, ierr
    end function
  end interface
  integer :: ierr
  ierr = detach(buffer_addr, size)
  if (present(ierror)) ierror = ierr
end subroutine

subroutine PMPIR_Buffer_detach_f08_large(buffer_addr, size, ierror)
  use, intrinsic :: iso_c_binding, only : c_ptr, c_int
  use :: mpi_f08_compile_constants, only : MPI_COUNT_KIND
  implicit none
  type(c_ptr), intent(out) :: buffer_addr
  integer(kind=MPI_COUNT_KIND), intent(out) :: size
  integer, optional, intent(out) :: ierror
  interface
    function detach(buffer_addr, size) bind(C, name='MPI_Buffer_detach_c') result(ierr)
      import :: c_ptr, c_int, MPI_COUNT_KIND
      type(c_ptr) :: buffer_addr
      integer(kind=MPI_COUNT_KIND) :: size
      integer(c_int) :: ierr
    end function
  end interface
  integer :: ierr
  ierr = detach(buffer_addr, size)
  if (present(ierror)) ierror = ierr
end subroutine

! MPI_Pcontrol: no IERROR in mpi_f08 (MPI-4.0 §15.2.5).
subroutine PMPIR_Pcontrol_f08(level)
  implicit none
  integer, intent(in) :: level
  call pmpi_pcontrol(level)
end subroutine

! MPI_F_sync_reg (MPI-4.0 §19.1.8): does nothing, but the compiler must assume that it reads and
! writes buf, so no register keeps a copy of it across the call.
subroutine PMPIR_F_sync_reg_f08ts(buf)
  implicit none
  type(*), dimension(..), asynchronous :: buf
end subroutine
