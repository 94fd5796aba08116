// Caching (MPI-3.1 §6.7): keyvals, and the attributes that users attach to
// communicators and datatypes under them.
//
// Attributes are kept here, by object, so the objects themselves carry
// nothing: a communicator or datatype is named by its address (any stable
// pointer) plus its kind, and its owner calls two hooks:
//
//   copy_all(kind, old, old_handle, new, new_handle)   on MPI_Comm_dup, MPI_Type_dup
//   delete_all(kind, obj, handle)                      on MPI_Comm_free, MPI_Type_free
//
// which run the keyvals' copy and delete callbacks. Callbacks are user code
// that may call MPI (even attribute functions on the same object), so none
// runs with a lock held.
//
// The predefined attributes of communicators (MPI_TAG_UB, MPI_HOST, MPI_IO,
// MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM;
// MPI-3.1 §8.1.2) are answered by get() too; they cannot be set or deleted.
#pragma once

#include <cstdint>

#include "base/error.h"
#include "mpi.h"

namespace ferry::attributes {

enum class Kind : uint8_t { kComm, kType, kWin };

// The language an attribute value was set in (MPI-4.0 §19.3.7), with MPICH's
// numbers for them (its MPIR_Attr_type, which MPII_Comm_set_attr takes). C
// sets a pointer and reads it back; Fortran sets an address-sized integer
// (MPI-1's MPI_ATTR_PUT an INTEGER), and C reads a pointer to that integer,
// while Fortran reads a C pointer as the integer it converts to. The store
// keeps the word and its form, and answers each language in its own.
enum class Form : int { kPointer = 0, kAint = 1, kInt = 3 };

// The copy callback, in any of the kinds' signatures (they differ only in
// the handle type, an int in MPICH's ABI, and MPI_Copy_function is
// MPI_Comm_copy_attr_function's MPI-1 name).
using CopyFn = int(int handle, int keyval, void* extra_state, void* value_in, void* value_out, int* flag);
using DeleteFn = int(int handle, int keyval, void* value, void* extra_state);

// MPI_*_create_keyval. Null callbacks are MPI_*_NULL_COPY_FN / _DELETE_FN;
// MPIR_Dup_fn (MPI_*_DUP_FN) copies the value.
int create_keyval(Kind kind, CopyFn* copy, DeleteFn* del, void* extra_state);
// MPI_*_free_keyval: the keyval can no longer be used for new attributes;
// it goes away once no object has an attribute under it (MPI-3.1 §6.7.2).
// Until then its handle stays valid, and freeing it again is a no-op.
Err free_keyval(Kind kind, int keyval);

// Marks a keyval's callbacks as Fortran ones (C trampolines around Fortran
// procedures): they get and return attribute values as Fortran integers, the
// stored word, where C's callbacks get a Fortran-set value by its address.
Err set_fortran_callbacks(int keyval);

// Checks that `keyval` is a live keyval of this kind (or a predefined one,
// when `predefined_ok`).
Err check_keyval(Kind kind, int keyval, bool predefined_ok);

// MPI_*_set_attr: replacing a value runs the delete callback on the old one
// first (MPI-3.1 §6.7.2). `form`: the language of the value (above).
Err set(Kind kind, const void* object, int handle, int keyval, void* value, Form form = Form::kPointer);
// MPI_*_get_attr: *found tells whether the object has the attribute. `as`:
// the language of the reader: C (kPointer) gets the address of a value set
// from Fortran (an address that lasts as long as the attribute); Fortran
// gets the stored word whatever set it.
Err get(Kind kind, const void* object, int keyval, void** value, bool* found, Form as = Form::kPointer);
// MPI_*_delete_attr: runs the delete callback; its error fails the call and
// keeps the attribute.
Err remove(Kind kind, const void* object, int handle, int keyval);

// The hooks for the objects' owners. copy_all returns the first copy
// callback's error (the duplicate then has the attributes copied so far and
// should be freed); delete_all runs the delete callbacks, newest attribute
// first, and stops at the first error (the object keeps the attributes not
// yet deleted, as MPI_Comm_free then fails).
Err copy_all(Kind kind, const void* from, int from_handle, const void* to, int to_handle);
Err delete_all(Kind kind, const void* object, int handle);

// How many attributes an object has, and how many keyvals exist (tests).
size_t count(Kind kind, const void* object);
size_t live_keyvals();

}  // namespace ferry::attributes
