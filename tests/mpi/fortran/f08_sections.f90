! mpi_f08 with noncontiguous array sections where no datatype can describe them (MPI-4.0 §19.1.12,
! MPI_SUBARRAYS_SUPPORTED): the buffers of the v collectives (whose displacements count elements of
! the contiguous array the section stands for), a reduction's send and receive buffers (one shared
! datatype), MPI_Pack's packed buffer. Each call must behave as if the section were contiguous:
! the same results as the same call on contiguous copies, and the elements between the section's
! own left as they were. A nonblocking call with such a section is refused with MPI_ERR_BUFFER.
program f08_sections
  use mpi_f08
  implicit none
  integer, parameter :: n = 8
  integer :: rank, size, i, j, ierr
  integer :: send(2 * n), wide(2, 4 * n), counts(64), displs(64)
  integer :: expected(4 * n), grid(3, 2 * n)
  integer, allocatable :: alltoall_in(:), alltoall_out(:)
  character :: packed(64)
  integer :: position, unpacked(n)
  type(MPI_Request) :: request

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)

  ! Allreduce: both buffers strided, the receive one a row of a 2-D array.
  do i = 1, n
    send(2 * i - 1) = rank * 100 + i
    send(2 * i) = -7
  end do
  wide = -1
  call MPI_Allreduce(send(1:2 * n:2), wide(2, 1:2 * n:2), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, n
    call check(wide(2, 2 * i - 1) == 100 * (size * (size - 1) / 2) + size * i, 'MPI_Allreduce sum in the section')
    call check(wide(2, 2 * i) == -1 .and. wide(1, 2 * i - 1) == -1, 'MPI_Allreduce wrote between the section''s elements')
  end do
  call check(send(2) == -7, 'MPI_Allreduce changed its send buffer')

  ! In place, on a 2-D section (every other row of two columns).
  grid = -3
  grid(1:3:2, 1:2) = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, grid(1:3:2, 1:2), 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(all(grid(1:3:2, 1:2) == size), 'MPI_Allreduce in place on a 2-D section')
  call check(all(grid(2, :) == -3) .and. all(grid(:, 3:) == -3), 'MPI_Allreduce in place wrote outside the section')

  ! Reduce to the last rank, receive buffer a strided section.
  wide = -1
  call MPI_Reduce(send(1:2 * n:2), wide(1, 1:4 * n:4), n, MPI_INTEGER, MPI_SUM, size - 1, MPI_COMM_WORLD, ierr)
  if (rank == size - 1) then
    do i = 1, n
      call check(wide(1, 4 * i - 3) == 100 * (size * (size - 1) / 2) + size * i, 'MPI_Reduce at the root')
    end do
    call check(count(wide == -1) == 2 * 4 * n - n, 'MPI_Reduce wrote outside its section')
  end if

  ! Allgatherv: rank r gives r + 1 elements, placed with one free element between ranks' blocks; the
  ! receive buffer is every other element of a row, so displacements count section elements.
  do i = 1, size
    counts(i) = i
    displs(i) = (i - 1) * i / 2 + (i - 1)
  end do
  wide = -1
  call MPI_Allgatherv(send(1:2 * (rank + 1):2), rank + 1, MPI_INTEGER, wide(1, 1:4 * n:2), counts, displs, &
                      MPI_INTEGER, MPI_COMM_WORLD, ierr)
  expected = -1
  do i = 1, size
    do j = 1, i
      expected(displs(i) + j) = (i - 1) * 100 + j
    end do
  end do
  do i = 1, min(2 * n, 4 * n / 2)
    call check(wide(1, 2 * i - 1) == expected(i), 'MPI_Allgatherv: an element of the section')
    call check(wide(1, 2 * i) == -1, 'MPI_Allgatherv wrote between the section''s elements')
  end do

  ! Gatherv and Scatterv through the same strided row, rooted at rank 0.
  wide = -1
  call MPI_Gatherv(send(1:2 * (rank + 1):2), rank + 1, MPI_INTEGER, wide(2, 1:4 * n:2), counts, displs, &
                   MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, 2 * n
      call check(wide(2, 2 * i - 1) == expected(i), 'MPI_Gatherv at the root')
    end do
  end if
  send = -9
  call MPI_Scatterv(wide(2, 1:4 * n:2), counts, displs, MPI_INTEGER, send(1:2 * (rank + 1):2), rank + 1, &
                    MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do j = 1, rank + 1
    call check(send(2 * j - 1) == rank * 100 + j .and. send(2 * j) == -9, 'MPI_Scatterv into a section')
  end do

  ! Alltoallv: one element to each rank, the send side a strided section with gaps of its own.
  allocate(alltoall_in(3 * size), alltoall_out(2 * size))
  do i = 1, size
    counts(i) = 1
    displs(i) = i - 1
  end do
  alltoall_in = -5
  alltoall_in(1:3 * size:3) = [(rank * 1000 + i, i = 0, size - 1)]
  alltoall_out = -1
  call MPI_Alltoallv(alltoall_in(1:3 * size:3), counts, displs, MPI_INTEGER, alltoall_out(1:2 * size:2), counts, &
                     displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, size
    call check(alltoall_out(2 * i - 1) == (i - 1) * 1000 + rank, 'MPI_Alltoallv: what rank i sent')
    call check(alltoall_out(2 * i) == -1, 'MPI_Alltoallv wrote between the section''s elements')
  end do

  ! MPI_Pack into every other byte; MPI_Unpack from there.
  packed = 'x'
  position = 0
  unpacked = [(rank + i, i = 1, n)]
  call MPI_Pack(unpacked, n, MPI_INTEGER, packed(1:64:2), 32, position, MPI_COMM_WORLD, ierr)
  call check(position == 4 * n, 'MPI_Pack position')
  call check(all(packed(2:64:2) == 'x'), 'MPI_Pack wrote between the section''s bytes')
  unpacked = 0
  position = 0
  call MPI_Unpack(packed(1:64:2), 32, position, unpacked, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(unpacked == [(rank + i, i = 1, n)]), 'MPI_Unpack from a section')

  ! A nonblocking call cannot copy back after the binding returns: refused.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Iallreduce(send(1:2 * n:2), wide(2, 1:2 * n:2), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'MPI_Iallreduce with sections: expected MPI_ERR_BUFFER')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'f08_sections: OK'
  call MPI_Finalize()

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    print '(a, i0, a, a)', 'f08_sections: FAILED on rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
