! The mpi_f08 module (MPI-4.0 §19.1.2): handles as TYPE(MPI_Comm)/..., == on them, TYPE(MPI_Status)
! with its named members, IERROR left out, choice buffers of any type and rank (TS 29113), the
! sentinels MPI_STATUS(ES)_IGNORE, MPI_IN_PLACE, MPI_BOTTOM, request indices from 1, LOGICALs,
! strings, TYPE(C_PTR) from MPI_Alloc_mem, the large-count forms through the same generic names,
! MPI_Status_f2f08/f082f and MPI_SIZEOF, noncontiguous array sections as buffers.
program f08_p2p_collectives
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer, c_associated
  implicit none
  integer :: rank, size, peer, from, count, i, which, ierr, len, fstatus(MPI_STATUS_SIZE)
  integer(kind=MPI_COUNT_KIND) :: count_c, size_c
  integer(kind=MPI_ADDRESS_KIND) :: address, alloc_size
  type(MPI_Status) :: status, statuses(2), back
  type(MPI_Request) :: requests(2)
  type(MPI_Comm) :: dup
  type(MPI_Datatype) :: pair
  double precision :: values(4, 3), got(4, 3), flat(12)
  integer, target :: sums(3)
  integer :: one, strip(10), back_strip(10)
  real :: matrix(2, 2)
  logical :: flag
  character(len=MPI_MAX_PROCESSOR_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: message
  type(c_ptr) :: memory
  integer, pointer :: cells(:)

  call MPI_Init()
  call MPI_Initialized(flag)
  if (.not. flag) call fail('MPI_Initialized')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Comm_size ierror')
  peer = mod(rank + 1, size)
  from = mod(rank + size - 1, size)

  ! A rank-2 array, received into another with ANY_SOURCE; the status's named members.
  values = reshape([(rank * 100 + i, i = 1, 12)], [4, 3])
  got = -1
  call MPI_Irecv(got, 12, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(values, 5 + rank, MPI_DOUBLE_PRECISION, peer, 10 + rank, MPI_COMM_WORLD, requests(2))
  call MPI_Waitall(2, requests, statuses)
  if (requests(1) /= MPI_REQUEST_NULL .or. .not. (requests(2) == MPI_REQUEST_NULL)) &
      call fail('requests not MPI_REQUEST_NULL after MPI_Waitall')
  if (statuses(1)%MPI_SOURCE /= from .or. statuses(1)%MPI_TAG /= 10 + from) call fail('status members')
  call MPI_Get_count(statuses(1), MPI_DOUBLE_PRECISION, count)
  if (count /= 5 + from) call fail('MPI_Get_count')
  flat = reshape(got, [12])
  if (flat(1) /= from * 100 + 1 .or. flat(count) /= from * 100 + count .or. flat(count + 1) /= -1) call fail('data')
  ! The large-count form, through the generic name.
  call MPI_Get_count(statuses(1), MPI_DOUBLE_PRECISION, count_c)
  if (count_c /= 5 + from) call fail('MPI_Get_count with MPI_COUNT_KIND')

  ! Scalars, MPI_STATUS_IGNORE, MPI_Waitany's index from 1 (MPI-4.0 §19.1; Debian's MPICH 4.0.2 says
  ! 0 from mpi_f08, its issue 6270, fixed in 4.1), MPI_Iprobe's flag.
  call MPI_Irecv(one, 1, MPI_INTEGER, from, 3, MPI_COMM_WORLD, requests(1))
  requests(2) = MPI_REQUEST_NULL
  call MPI_Send(rank, 1, MPI_INTEGER, peer, 3, MPI_COMM_WORLD)
  call MPI_Waitany(2, requests, which, status)
  if (which /= 1 .or. one /= from) call fail('MPI_Waitany index or data')
  call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE)
  if (flag) call fail('MPI_Iprobe found a message nobody sent')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 4, one, 1, MPI_INTEGER, from, 4, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  if (one /= from) call fail('MPI_Sendrecv')
  count_c = 1
  call MPI_Sendrecv(rank, count_c, MPI_INTEGER, peer, 5, one, count_c, MPI_INTEGER, from, 5, &
                    MPI_COMM_WORLD, status)
  if (one /= from .or. status%MPI_SOURCE /= from) call fail('MPI_Sendrecv with MPI_COUNT_KIND counts')

  ! Noncontiguous array sections as buffers (MPI_SUBARRAYS_SUPPORTED, MPI-4.0 §19.1.12): every
  ! other element of a vector, a column-strided piece of a matrix, blocking and nonblocking.
  if (.not. MPI_SUBARRAYS_SUPPORTED) call fail('MPI_SUBARRAYS_SUPPORTED is .false.')
  strip = [(rank * 100 + i, i = 1, 10)]
  back_strip = -1
  call MPI_Irecv(back_strip(1:10:3), 3, MPI_INTEGER, from, 6, MPI_COMM_WORLD, requests(1))
  call MPI_Send(strip(2:10:2), 3, MPI_INTEGER, peer, 6, MPI_COMM_WORLD)
  call MPI_Wait(requests(1), status)
  if (any(back_strip /= [from * 100 + 2, -1, -1, from * 100 + 4, -1, -1, from * 100 + 6, -1, -1, -1])) &
      call fail('sections as buffers: MPI_Send(strip(2:10:2)) into MPI_Irecv(back(1:10:3))')
  values = reshape([(rank * 100 + i, i = 1, 12)], [4, 3])
  got = -1
  call MPI_Sendrecv(values(2:3, 1:3:2), 4, MPI_DOUBLE_PRECISION, peer, 7, got(1:4:3, 2:3), 4, &
                    MPI_DOUBLE_PRECISION, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (got(1, 2) /= from * 100 + 2 .or. got(4, 2) /= from * 100 + 3 .or. got(1, 3) /= from * 100 + 10 .or. &
      got(4, 3) /= from * 100 + 11 .or. got(2, 2) /= -1 .or. got(1, 1) /= -1) &
      call fail('rank-2 sections as buffers of MPI_Sendrecv')

  ! Collectives: MPI_IN_PLACE, a LOGICAL reduction, a user-visible dup and its comparison.
  sums = [rank, 1, 2 * rank]
  call MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (sums(1) /= size * (size - 1) / 2 .or. sums(2) /= size .or. sums(3) /= size * (size - 1)) &
      call fail('MPI_Allreduce with MPI_IN_PLACE')
  flag = rank == 0
  call MPI_Allreduce(MPI_IN_PLACE, flag, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
  if (.not. flag) call fail('MPI_LOR on LOGICAL')
  matrix = rank
  call MPI_Bcast(matrix, 4, MPI_REAL, size - 1, MPI_COMM_WORLD)
  if (any(matrix /= size - 1)) call fail('MPI_Bcast of a REAL matrix')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  if (dup == MPI_COMM_WORLD .or. dup == MPI_COMM_NULL) call fail('MPI_Comm_dup handle')
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, i)
  if (i /= MPI_CONGRUENT) call fail('MPI_Comm_compare')
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) call fail('MPI_Comm_free did not set MPI_COMM_NULL')

  ! MPI_BOTTOM with absolute addresses from MPI_Get_address.
  call MPI_Get_address(sums(2), address)
  call MPI_Type_create_hindexed_block(1, 2, [address], MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  call MPI_Type_size(pair, i)
  call MPI_Type_size(pair, size_c)
  if (i /= 8 .or. size_c /= 8) call fail('MPI_Type_size')
  sums = [7, 8, 9]
  if (rank == 0) sums = [1, 2, 3]
  call MPI_F_sync_reg(sums)
  call MPI_Bcast(MPI_BOTTOM, 1, pair, 0, MPI_COMM_WORLD)
  ! The compiler does not see MPI_Bcast write sums (MPI-4.0 §19.1.17).
  call MPI_F_sync_reg(sums)
  if (rank /= 0 .and. any(sums /= [7, 2, 3])) call fail('MPI_Bcast from MPI_BOTTOM')
  call MPI_Type_free(pair)

  ! Strings and error classes.
  call MPI_Get_processor_name(name, len)
  if (len <= 0 .or. len > MPI_MAX_PROCESSOR_NAME .or. name(len + 1:) /= ' ') call fail('MPI_Get_processor_name')
  call MPI_Error_string(MPI_ERR_TAG, message, len)
  if (len == 0 .or. index_of(message, 'tag') == 0) call fail('MPI_Error_string')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(rank, 1, MPI_INTEGER, peer, -5, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i)
  if (i /= MPI_ERR_TAG) call fail('an invalid tag is not MPI_ERR_TAG')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! TYPE(C_PTR) from MPI_Alloc_mem.
  alloc_size = 4 * 16
  call MPI_Alloc_mem(alloc_size, MPI_INFO_NULL, memory)
  if (.not. c_associated(memory)) call fail('MPI_Alloc_mem')
  call c_f_pointer(memory, cells, [16])
  cells = rank
  call MPI_Free_mem(cells)

  ! Between mpif.h's status and TYPE(MPI_Status); MPI_SIZEOF.
  call MPI_Status_f082f(statuses(1), fstatus)
  if (fstatus(MPI_SOURCE) /= from .or. fstatus(MPI_TAG) /= 10 + from) call fail('MPI_Status_f082f')
  call MPI_Status_f2f08(fstatus, back)
  if (back%MPI_SOURCE /= from .or. back%MPI_TAG /= 10 + from) call fail('MPI_Status_f2f08')
  call MPI_Sizeof(values, i)
  if (i /= 8) call fail('MPI_Sizeof of DOUBLE PRECISION')
  call MPI_Sizeof(one, i, ierr)
  if (i /= 4 .or. ierr /= 0) call fail('MPI_Sizeof of INTEGER')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'f08_p2p_collectives: OK'
  call MPI_Finalize()

contains

  integer function index_of(text, word)
    character(len=*), intent(in) :: text, word
    index_of = index(text, word)
  end function

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a)', 'f08_p2p_collectives: FAILED on rank ', rank, ': ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
