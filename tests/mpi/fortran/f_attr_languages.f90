! Attributes across languages (MPI-4.0 §19.3.7), with f_attr_languages_c.c: a value set from Fortran
! (MPI_COMM/TYPE/WIN_SET_ATTR's INTEGER(KIND=MPI_ADDRESS_KIND), MPI-1 MPI_ATTR_PUT's INTEGER) reads in
! C as a pointer to that integer; a value set from C (a pointer) reads in Fortran as the integer the
! pointer converts to; each language reads back what it set; predefined attributes in both; and copy
! and delete callbacks get values in their own language's form: C's a pointer to a Fortran-set value,
! Fortran's the integer a C pointer converts to.
module fortran_callbacks
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: copy_saw = -1, delete_saw = -1
end module

subroutine f_copy(oldcomm, keyval, extra_state, value_in, value_out, flag, ierr)
  use fortran_callbacks
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
  logical :: flag
  copy_saw = value_in
  value_out = value_in + 8
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine f_delete(comm, keyval, value, extra_state, ierr)
  use fortran_callbacks
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
  delete_saw = value
  ierr = MPI_SUCCESS
end subroutine

program f_attr_languages
  use, intrinsic :: iso_c_binding, only : c_char, c_null_char, c_int
  use fortran_callbacks
  implicit none
  interface
    integer(c_int) function c_errors() bind(C)
      import :: c_int
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_attribute_address() bind(C)
      import :: MPI_ADDRESS_KIND
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_copy_target_address() bind(C)
      import :: MPI_ADDRESS_KIND
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_copy_saw() bind(C)
      import :: MPI_ADDRESS_KIND
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_delete_saw() bind(C)
      import :: MPI_ADDRESS_KIND
    end function
    subroutine c_set_comm(comm, keyval) bind(C)
      integer :: comm, keyval
    end subroutine
    subroutine c_expect_comm_aint(comm, keyval, expected, what) bind(C)
      import :: MPI_ADDRESS_KIND, c_char
      integer :: comm, keyval
      integer(kind=MPI_ADDRESS_KIND) :: expected
      character(kind=c_char), dimension(*) :: what
    end subroutine
    subroutine c_expect_comm_pointer(comm, keyval, expected, what) bind(C)
      import :: MPI_ADDRESS_KIND, c_char
      integer :: comm, keyval
      integer(kind=MPI_ADDRESS_KIND) :: expected
      character(kind=c_char), dimension(*) :: what
    end subroutine
    subroutine c_expect_comm_int(comm, keyval, expected, what) bind(C)
      import :: c_char
      integer :: comm, keyval, expected
      character(kind=c_char), dimension(*) :: what
    end subroutine
    subroutine c_expect_type_aint(datatype, keyval, expected) bind(C)
      import :: MPI_ADDRESS_KIND
      integer :: datatype, keyval
      integer(kind=MPI_ADDRESS_KIND) :: expected
    end subroutine
    subroutine c_expect_win_aint(win, keyval, expected) bind(C)
      import :: MPI_ADDRESS_KIND
      integer :: win, keyval
      integer(kind=MPI_ADDRESS_KIND) :: expected
    end subroutine
    integer function c_tag_ub() bind(C)
    end function
    integer function c_keyval() bind(C)
    end function
  end interface
  external :: f_copy, f_delete
  integer :: ierr, rank, fkey, ckey, key1, tkey, wkey, dup, int_value, tag_ub, win
  integer(kind=MPI_ADDRESS_KIND) :: value, expected, zero = 0
  integer :: window_memory(4)
  logical :: flag

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  ! A value wider than an INTEGER, so that losing its high half shows.
  expected = 5 + ishft(int(3, MPI_ADDRESS_KIND), 40)

  ! Fortran set, Fortran get; Fortran set, C get (a pointer to the integer).
  call MPI_COMM_CREATE_KEYVAL(f_copy, f_delete, fkey, zero, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, fkey, expected, ierr)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, fkey, value, flag, ierr)
  if (.not. flag .or. value /= expected) call fail('Fortran set, Fortran get')
  call c_expect_comm_aint(MPI_COMM_WORLD, fkey, expected, 'Fortran set, C get' // c_null_char)

  ! Fortran callbacks on a Fortran-set value get the integer; the copy reads as an integer in both.
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  if (copy_saw /= expected) call fail('Fortran copy callback of a Fortran-set value')
  call MPI_COMM_GET_ATTR(dup, fkey, value, flag, ierr)
  if (.not. flag .or. value /= expected + 8) call fail('Fortran copy read in Fortran')
  call c_expect_comm_aint(dup, fkey, expected + 8, 'Fortran copy read in C' // c_null_char)
  call MPI_COMM_FREE(dup, ierr)
  if (delete_saw /= expected + 8) call fail('Fortran delete callback of a Fortran-made copy')

  ! C set, C get (the pointer); C set, Fortran get (the pointer as an integer); Fortran callbacks
  ! on a C-set value get that integer.
  call c_set_comm(MPI_COMM_WORLD, fkey)
  call c_expect_comm_pointer(MPI_COMM_WORLD, fkey, c_attribute_address(), 'C set, C get' // c_null_char)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, fkey, value, flag, ierr)
  if (.not. flag .or. value /= c_attribute_address()) call fail('C set, Fortran get')
  if (delete_saw /= expected) call fail('Fortran delete callback on replacing a Fortran-set value')
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  if (copy_saw /= c_attribute_address()) call fail('Fortran copy callback of a C-set value')
  call MPI_COMM_GET_ATTR(dup, fkey, value, flag, ierr)
  if (.not. flag .or. value /= c_attribute_address() + 8) call fail('Fortran copy of a C-set value')
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, fkey, ierr)
  if (delete_saw /= c_attribute_address()) call fail('Fortran delete callback of a C-set value')
  call MPI_COMM_FREE_KEYVAL(fkey, ierr)

  ! C callbacks on a Fortran-set value get a pointer to the integer; their copy is C's pointer.
  ckey = c_keyval()
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, ckey, expected, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  if (c_copy_saw() /= expected) call fail('C copy callback of a Fortran-set value')
  call c_expect_comm_pointer(dup, ckey, c_copy_target_address(), 'C copy read in C' // c_null_char)
  call MPI_COMM_GET_ATTR(dup, ckey, value, flag, ierr)
  if (.not. flag .or. value /= c_copy_target_address()) call fail('C copy read in Fortran')
  call MPI_COMM_FREE(dup, ierr)
  if (c_delete_saw() /= expected + 1) call fail('C delete callback of a C-made copy')
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, ckey, ierr)
  if (c_delete_saw() /= expected) call fail('C delete callback of a Fortran-set value')
  call MPI_COMM_FREE_KEYVAL(ckey, ierr)

  ! MPI-1: an INTEGER from MPI_ATTR_PUT reads in C through a pointer to an int, and in Fortran
  ! through MPI_ATTR_GET and MPI_COMM_GET_ATTR alike.
  call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, key1, -424242, ierr)
  call c_expect_comm_int(MPI_COMM_WORLD, key1, -424242, 'MPI_ATTR_PUT, C get' // c_null_char)
  call MPI_ATTR_GET(MPI_COMM_WORLD, key1, int_value, flag, ierr)
  if (.not. flag .or. int_value /= -424242) call fail('MPI_ATTR_PUT, MPI_ATTR_GET')
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, key1, value, flag, ierr)
  if (.not. flag .or. value /= -424242) call fail('MPI_ATTR_PUT, MPI_COMM_GET_ATTR')
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call c_expect_comm_int(dup, key1, -424242, 'MPI_DUP_FN copy of MPI_ATTR_PUT, C get' // c_null_char)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_ATTR_DELETE(MPI_COMM_WORLD, key1, ierr)
  call MPI_KEYVAL_FREE(key1, ierr)

  ! Predefined: C reads a pointer to the int, Fortran the value.
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, value, flag, ierr)
  tag_ub = c_tag_ub()
  if (.not. flag .or. value /= tag_ub .or. tag_ub < 32767) call fail('MPI_TAG_UB in Fortran and C')

  ! Datatypes and windows: Fortran set, C get.
  call MPI_TYPE_CREATE_KEYVAL(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, zero, ierr)
  call MPI_TYPE_SET_ATTR(MPI_INTEGER, tkey, expected, ierr)
  call c_expect_type_aint(MPI_INTEGER, tkey, expected)
  call MPI_TYPE_DELETE_ATTR(MPI_INTEGER, tkey, ierr)
  call MPI_TYPE_FREE_KEYVAL(tkey, ierr)
  call MPI_WIN_CREATE(window_memory, int(16, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_WIN_CREATE_KEYVAL(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, zero, ierr)
  call MPI_WIN_SET_ATTR(win, wkey, expected, ierr)
  call c_expect_win_aint(win, wkey, expected)
  call MPI_WIN_FREE(win, ierr)
  call MPI_WIN_FREE_KEYVAL(wkey, ierr)

  if (c_errors() /= 0) call fail('the C half found errors')
  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'f_attr_languages: OK'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: ierr
    print '(a,i0,a,a)', 'f_attr_languages: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
