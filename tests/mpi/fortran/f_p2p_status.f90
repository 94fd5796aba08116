! Point-to-point from Fortran with mpif.h: statuses as INTEGER(MPI_STATUS_SIZE) arrays indexed by
! MPI_SOURCE/MPI_TAG/MPI_ERROR, MPI_GET_COUNT, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (common
! block sentinels), LOGICAL flags (MPI_IPROBE, MPI_TEST), requests as INTEGER handles, and request
! indices counted from 1 (MPI_WAITANY, MPI_WAITSOME).
program f_p2p_status
  implicit none
  include 'mpif.h'
  integer :: rank, size, ierr, peer, count, i, index, outcount, indices(2)
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), requests(2)
  double precision :: values(10), got(10)
  logical :: flag

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  if (MPI_STATUS_SIZE /= 5 .or. MPI_SOURCE /= 3 .or. MPI_TAG /= 4 .or. MPI_ERROR /= 5) &
      call fail(rank, 'MPICH status layout constants')

  ! Every rank sends 3 + rank doubles to the next with tag 100 + rank, receives from the previous.
  peer = mod(rank + 1, size)
  do i = 1, 10
    values(i) = rank * 100 + i
  end do
  got = -1
  call MPI_IRECV(got, 10, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                 requests(1), ierr)
  call MPI_ISEND(values, 3 + rank, MPI_DOUBLE_PRECISION, peer, 100 + rank, MPI_COMM_WORLD, &
                 requests(2), ierr)
  call MPI_WAITALL(2, requests, statuses, ierr)
  if (ierr /= MPI_SUCCESS) call fail(rank, 'MPI_WAITALL')
  if (requests(1) /= MPI_REQUEST_NULL .or. requests(2) /= MPI_REQUEST_NULL) &
      call fail(rank, 'requests not set to MPI_REQUEST_NULL')
  peer = mod(rank + size - 1, size)
  if (statuses(MPI_SOURCE, 1) /= peer) call fail(rank, 'status(MPI_SOURCE)')
  if (statuses(MPI_TAG, 1) /= 100 + peer) call fail(rank, 'status(MPI_TAG)')
  call MPI_GET_COUNT(statuses(1, 1), MPI_DOUBLE_PRECISION, count, ierr)
  if (count /= 3 + peer) call fail(rank, 'MPI_GET_COUNT')
  do i = 1, count
    if (got(i) /= peer * 100 + i) call fail(rank, 'received data')
  end do
  if (got(count + 1) /= -1) call fail(rank, 'received past the count')

  ! MPI_IPROBE's LOGICAL flag, then a blocking receive into MPI_STATUS_IGNORE.
  ! Nobody sends with tag 7 before the barrier.
  call MPI_IPROBE(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, flag, status, ierr)
  if (flag) call fail(rank, 'MPI_IPROBE found a message nobody sent')
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_SEND(rank, 1, MPI_INTEGER, mod(rank + 1, size), 7, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_IPROBE(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, flag, status, ierr)
  end do
  if (status(MPI_SOURCE) /= peer) call fail(rank, 'MPI_IPROBE status(MPI_SOURCE)')
  call MPI_RECV(i, 1, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (i /= peer) call fail(rank, 'MPI_RECV with MPI_STATUS_IGNORE')

  ! MPI_TEST's flag on a completed request, and MPI_STATUSES_IGNORE.
  call MPI_IRECV(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_TEST(requests(1), flag, status, ierr)
  if (.not. flag) call fail(rank, 'MPI_TEST from MPI_PROC_NULL')
  call MPI_IRECV(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_ISEND(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_WAITALL(2, requests, MPI_STATUSES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) call fail(rank, 'MPI_WAITALL with MPI_STATUSES_IGNORE')

  ! MPI_WAITANY and MPI_WAITSOME count the requests from 1, as Fortran arrays do.
  requests(1) = MPI_REQUEST_NULL
  call MPI_IRECV(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_WAITANY(2, requests, index, status, ierr)
  if (index /= 2) call fail(rank, 'MPI_WAITANY index')
  call MPI_IRECV(i, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_WAITSOME(2, requests, outcount, indices, statuses, ierr)
  if (outcount /= 1 .or. indices(1) /= 1) call fail(rank, 'MPI_WAITSOME indices')

  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'f_p2p_status: OK'
contains
  subroutine fail(rank, what)
    integer, intent(in) :: rank
    character(len=*), intent(in) :: what
    integer :: ierr
    print '(a,i0,a,a)', 'f_p2p_status: rank ', rank, ': FAILED: ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
