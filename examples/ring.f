! ring: a token goes once around all ranks, as in ring.c, in Fortran 77
! with mpif.h. Rank 0 starts it at 1, every other rank adds one before
! passing it on, so it comes back to rank 0 holding the number of ranks.
!
!   mpifort -o ring ring.f
!   mpirun -n 4 ./ring
      program ring
      implicit none
      include 'mpif.h'
      integer rank, size, next, prev, token, ierr
      integer status(MPI_STATUS_SIZE)

      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
      next = mod(rank + 1, size)
      prev = mod(rank + size - 1, size)

      if (rank .eq. 0) then
!        Rank 0 sends first and receives last; one call does both, which
!        also works when rank 0 is alone and sends to itself.
         token = 1
         call MPI_SENDRECV_REPLACE(token, 1, MPI_INTEGER, next, 0,
     &        prev, 0, MPI_COMM_WORLD, status, ierr)
         if (token .ne. size .or. status(MPI_SOURCE) .ne. prev) then
            print *, 'ring: the token came back as', token,
     &           ' from', status(MPI_SOURCE), ', expected', size
            call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
         end if
         write (*, '(a,i0,a,i0)') 'ring: the token went through ',
     &        size, ' ranks and came back as ', token
      else
         call MPI_RECV(token, 1, MPI_INTEGER, prev, 0, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, ierr)
         token = token + 1
         call MPI_SEND(token, 1, MPI_INTEGER, next, 0, MPI_COMM_WORLD,
     &        ierr)
      end if

      call MPI_FINALIZE(ierr)
      end
