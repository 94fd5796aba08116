! MPI_SIZEOF for the mpi module (MPI-4.0 §19.1.9): the size in bytes of one element of x, for a
! scalar or an array. A module of procedures, so compiled into libmpifort; named, with its
! procedures, as MPICH's (mpi_sizeofs, mpi_sizeof_i, mpi_sizeof_iv, ...) so that programs built
! against MPICH's mpi.mod find them here too. mpi_f08 has its own (gen_f08.py: mpi_f08_types).
module mpi_sizeofs
  implicit none
  private
  public :: MPI_SIZEOF
  interface MPI_SIZEOF
    module procedure mpi_sizeof_i, mpi_sizeof_iv, mpi_sizeof_i1, mpi_sizeof_i1v, mpi_sizeof_i2, mpi_sizeof_i2v
    module procedure mpi_sizeof_i8, mpi_sizeof_i8v, mpi_sizeof_r, mpi_sizeof_rv, mpi_sizeof_d, mpi_sizeof_dv
    module procedure mpi_sizeof_cx, mpi_sizeof_cxv, mpi_sizeof_l, mpi_sizeof_lv, mpi_sizeof_ch, mpi_sizeof_chv
  end interface

contains

  subroutine mpi_sizeof_i(x, size, ierror)
    integer :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_iv(x, size, ierror)
    integer :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_i1(x, size, ierror)
    integer(kind=1) :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_i1v(x, size, ierror)
    integer(kind=1) :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_i2(x, size, ierror)
    integer(kind=2) :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_i2v(x, size, ierror)
    integer(kind=2) :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_i8(x, size, ierror)
    integer(kind=8) :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_i8v(x, size, ierror)
    integer(kind=8) :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_r(x, size, ierror)
    real :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_rv(x, size, ierror)
    real :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_d(x, size, ierror)
    double precision :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_dv(x, size, ierror)
    double precision :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_cx(x, size, ierror)
    complex :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_cxv(x, size, ierror)
    complex :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_l(x, size, ierror)
    logical :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_lv(x, size, ierror)
    logical :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_ch(x, size, ierror)
    character(len=1) :: x
    integer :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = 0
  end subroutine
  subroutine mpi_sizeof_chv(x, size, ierror)
    character(len=1) :: x(*)
    integer :: size, ierror
    size = int(storage_size(x(1)) / 8)
    ierror = 0
  end subroutine
end module mpi_sizeofs
