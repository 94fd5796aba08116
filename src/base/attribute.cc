#include "base/attribute.h"

#include <list>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "base/handles.h"
#include "base/limits.h"
#include "base/process.h"

namespace ferry::attributes {
namespace {

struct Keyval {
  Kind kind;
  CopyFn* copy;
  DeleteFn* del;
  void* extra_state;
  // The user's handle (until MPI_*_free_keyval) and one per attribute, so
  // the callbacks outlive the handle (MPI-3.1 §6.7.2).
  int references;
  bool freed;
  bool fortran = false;  // callbacks take Fortran values (set_fortran_callbacks)
};

struct Entry {
  int keyval;
  void* value;  // the pointer C set, or the integer Fortran set
  Form form;
};

// Everything here is reached from any thread; callbacks run outside it.
std::mutex mutex;
handle::Table<Keyval> keyvals;
// Per object, its attributes in the order they were set. A list, because C
// reads a Fortran-set value through the address of the entry's word, which
// must stay put while other attributes come and go.
using Entries = std::list<Entry>;
std::map<std::pair<Kind, const void*>, Entries> lists;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kComm: return "communicator";
    case Kind::kType: return "datatype";
    case Kind::kWin: return "window";
  }
  return "object";
}

bool is_predefined(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
    case MPI_APPNUM:
      return true;
    default:
      return false;
  }
}

// The keyval behind a handle, with the lock held.
Keyval* find_locked(int keyval) {
  if (!handle::is_dynamic(keyval, handle::Object::kKeyval)) return nullptr;
  return keyvals.get(handle::index_of(keyval));
}

Err check_locked(Kind kind, int keyval, bool predefined_ok, Keyval** out) {
  *out = nullptr;
  if (keyval == MPI_KEYVAL_INVALID) return fail(MPI_ERR_KEYVAL, "keyval is MPI_KEYVAL_INVALID");
  if (is_predefined(keyval)) {
    if (kind != Kind::kComm)
      return fail(MPI_ERR_KEYVAL, "keyval 0x%x is a communicator attribute, not a %s one",
                  static_cast<unsigned>(keyval), kind_name(kind));
    if (!predefined_ok)
      return fail(MPI_ERR_KEYVAL, "keyval 0x%x is predefined (read-only)", static_cast<unsigned>(keyval));
    return {};
  }
  Keyval* k = find_locked(keyval);
  if (k == nullptr) return fail(MPI_ERR_KEYVAL, "invalid keyval 0x%x", static_cast<unsigned>(keyval));
  if (k->kind != kind)
    return fail(MPI_ERR_KEYVAL, "keyval 0x%x was created for a %s, not a %s", static_cast<unsigned>(keyval),
                kind_name(k->kind), kind_name(kind));
  *out = k;
  return {};
}

void unref_locked(int keyval, Keyval* k) {
  if (--k->references == 0) delete keyvals.remove(handle::index_of(keyval));
}

Entries* list_locked(Kind kind, const void* object) {
  auto it = lists.find({kind, object});
  return it == lists.end() ? nullptr : &it->second;
}

Entry* entry_locked(Kind kind, const void* object, int keyval) {
  Entries* list = list_locked(kind, object);
  if (list == nullptr) return nullptr;
  for (Entry& e : *list)
    if (e.keyval == keyval) return &e;
  return nullptr;
}

// The value a keyval's callbacks get for an entry: Fortran ones the word, C
// ones the pointer C set or the address of the integer Fortran set.
void* callback_value(const Keyval* k, Entry* e) {
  return k->fortran || e->form == Form::kPointer ? e->value : &e->value;
}

// A callback's return value as an error of the call that ran it.
Err callback_error(const char* which, int keyval, int code) {
  int mpi_class = error_code::is_valid(code) ? error_code::class_of(code) : MPI_ERR_OTHER;
  if (mpi_class == MPI_SUCCESS) mpi_class = MPI_ERR_OTHER;
  return fail(mpi_class, "the %s callback of keyval 0x%x returned error %d", which, static_cast<unsigned>(keyval),
              code);
}

// Runs the delete callback on an attribute's value (lock not held).
Err run_delete(int handle, int keyval, DeleteFn* del, void* value, void* extra_state) {
  if (del == nullptr) return {};
  int code = del(handle, keyval, value, extra_state);
  if (code != MPI_SUCCESS) return callback_error("delete", keyval, code);
  return {};
}

// MPI-3.1 §8.1.2: the value of a predefined attribute is the address of an
// int that lives as long as the library.
void* predefined_value(int keyval) {
  static int tag_ub;
  static int host;
  static int io;
  static int wtime_is_global;
  static int universe_size;
  static int appnum;
  switch (keyval) {
    case MPI_TAG_UB:
      tag_ub = kTagUpperBound;
      return &tag_ub;
    case MPI_HOST:
      host = MPI_PROC_NULL;  // no host process
      return &host;
    case MPI_IO:
      io = MPI_ANY_SOURCE;  // every rank can do I/O
      return &io;
    case MPI_WTIME_IS_GLOBAL:
      wtime_is_global = 0;  // each host has its own clock
      return &wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      universe_size = process::facts().universe_size;
      return &universe_size;
    case MPI_LASTUSEDCODE:
      // Kept by the error codes: MPI_Add_error_class/_code move it on.
      return const_cast<int*>(error_code::last_used());
    case MPI_APPNUM:
      appnum = process::facts().appnum;
      return &appnum;
  }
  return nullptr;
}

}  // namespace

int create_keyval(Kind kind, CopyFn* copy, DeleteFn* del, void* extra_state) {
  std::lock_guard<std::mutex> lock(mutex);
  uint32_t index = keyvals.add(new Keyval{kind, copy, del, extra_state, 1, false});
  return handle::make_dynamic(handle::Object::kKeyval, index);
}

Err free_keyval(Kind kind, int keyval) {
  std::lock_guard<std::mutex> lock(mutex);
  Keyval* k = nullptr;
  if (is_predefined(keyval)) return fail(MPI_ERR_KEYVAL, "keyval 0x%x is predefined", static_cast<unsigned>(keyval));
  if (Err e = check_locked(kind, keyval, false, &k)) return e;
  // Freed already, but alive while attributes use it: freeing it again (a
  // delete callback that frees its keyval, run once per object, or a second
  // copy of the handle) changes nothing. MPICH accepts this too, and its
  // attr/keyval_double_free* tests rely on it.
  if (k->freed) return {};
  k->freed = true;
  unref_locked(keyval, k);
  return {};
}

Err check_keyval(Kind kind, int keyval, bool predefined_ok) {
  std::lock_guard<std::mutex> lock(mutex);
  Keyval* k = nullptr;
  return check_locked(kind, keyval, predefined_ok, &k);
}

Err set_fortran_callbacks(int keyval) {
  std::lock_guard<std::mutex> lock(mutex);
  Keyval* k = find_locked(keyval);
  if (k == nullptr) return fail(MPI_ERR_KEYVAL, "invalid keyval 0x%x", static_cast<unsigned>(keyval));
  k->fortran = true;
  return {};
}

Err set(Kind kind, const void* object, int handle, int keyval, void* value, Form form) {
  DeleteFn* del = nullptr;
  void* old_value = nullptr;
  void* extra_state = nullptr;
  bool replacing = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    Keyval* k = nullptr;
    if (Err e = check_locked(kind, keyval, false, &k)) return e;
    if (k->freed) return fail(MPI_ERR_KEYVAL, "keyval 0x%x has been freed", static_cast<unsigned>(keyval));
    if (Entry* e = entry_locked(kind, object, keyval)) {
      replacing = true;
      del = k->del;
      old_value = callback_value(k, e);
      extra_state = k->extra_state;
    } else {
      lists[{kind, object}].push_back(Entry{keyval, value, form});
      ++k->references;
      return {};
    }
  }
  // MPI-3.1 §6.7.2: the old value is deleted first; if that fails, the
  // attribute keeps it.
  if (replacing) {
    if (Err e = run_delete(handle, keyval, del, old_value, extra_state)) return e;
    std::lock_guard<std::mutex> lock(mutex);
    if (Entry* e = entry_locked(kind, object, keyval)) {
      e->value = value;
      e->form = form;
    }
  }
  return {};
}

Err get(Kind kind, const void* object, int keyval, void** value, bool* found, Form as) {
  std::lock_guard<std::mutex> lock(mutex);
  Keyval* k = nullptr;
  if (Err e = check_locked(kind, keyval, true, &k)) return e;
  *found = false;
  if (k == nullptr) {
    *value = predefined_value(keyval);
    *found = true;
    return {};
  }
  if (Entry* e = entry_locked(kind, object, keyval)) {
    // MPI-4.0 §19.3.7: C reads a Fortran-set value by its address.
    *value = as == Form::kPointer && e->form != Form::kPointer ? &e->value : e->value;
    *found = true;
  }
  return {};
}

Err remove(Kind kind, const void* object, int handle, int keyval) {
  DeleteFn* del = nullptr;
  void* value = nullptr;
  void* extra_state = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    Keyval* k = nullptr;
    if (Err e = check_locked(kind, keyval, false, &k)) return e;
    Entry* e = entry_locked(kind, object, keyval);
    if (e == nullptr) return {};  // nothing attached under this keyval
    del = k->del;
    value = callback_value(k, e);
    extra_state = k->extra_state;
    ++k->references;  // keeps the callback alive while it runs unlocked
  }
  Err result = run_delete(handle, keyval, del, value, extra_state);
  std::lock_guard<std::mutex> lock(mutex);
  Keyval* k = find_locked(keyval);
  if (result.ok()) {
    Entries* list = list_locked(kind, object);
    for (auto it = list->begin(); it != list->end(); ++it) {
      if (it->keyval == keyval) {
        list->erase(it);
        unref_locked(keyval, k);
        break;
      }
    }
    if (list->empty()) lists.erase({kind, object});
  }
  unref_locked(keyval, k);
  return result;
}

Err copy_all(Kind kind, const void* from, int from_handle, const void* to, int to_handle) {
  struct Pending {
    int keyval;
    void* value;     // the stored word
    void* argument;  // what the copy callback gets (callback_value)
    Form form;
    bool fortran;
    CopyFn* copy;
    void* extra_state;
  };
  std::vector<Pending> pending;
  {
    std::lock_guard<std::mutex> lock(mutex);
    Entries* list = list_locked(kind, from);
    if (list == nullptr) return {};
    for (Entry& e : *list) {
      Keyval* k = find_locked(e.keyval);
      if (k->copy == nullptr) continue;  // MPI_*_NULL_COPY_FN: not copied
      ++k->references;
      pending.push_back(Pending{e.keyval, e.value, callback_value(k, &e), e.form, k->fortran, k->copy, k->extra_state});
    }
  }
  Err result;
  for (const Pending& p : pending) {
    if (!result.ok()) break;
    void* copied = nullptr;
    int flag = 0;
    // The copy is in the language of the callback that made it: C's returns
    // a pointer, Fortran's an integer (INTEGER for MPI-1's keyvals' values).
    Form form = p.fortran ? (p.form == Form::kInt ? Form::kInt : Form::kAint) : Form::kPointer;
    if (p.copy == &MPIR_Dup_fn) {
      // MPI_*_DUP_FN: the value itself, without a call through a cast pointer.
      copied = p.value;
      form = p.form;
      flag = 1;
    } else if (int code = p.copy(from_handle, p.keyval, p.extra_state, p.argument, &copied, &flag);
               code != MPI_SUCCESS) {
      result = callback_error("copy", p.keyval, code);
      break;
    }
    if (!flag) continue;
    std::lock_guard<std::mutex> lock(mutex);
    lists[{kind, to}].push_back(Entry{p.keyval, copied, form});
    ++find_locked(p.keyval)->references;
  }
  std::lock_guard<std::mutex> lock(mutex);
  for (const Pending& p : pending) unref_locked(p.keyval, find_locked(p.keyval));
  return result;
}

Err delete_all(Kind kind, const void* object, int handle) {
  for (;;) {
    int keyval;
    {
      std::lock_guard<std::mutex> lock(mutex);
      Entries* list = list_locked(kind, object);
      if (list == nullptr) return {};
      if (list->empty()) {
        lists.erase({kind, object});
        return {};
      }
      keyval = list->back().keyval;
    }
    if (Err e = remove(kind, object, handle, keyval)) return e;
  }
}

size_t count(Kind kind, const void* object) {
  std::lock_guard<std::mutex> lock(mutex);
  Entries* list = list_locked(kind, object);
  return list == nullptr ? 0 : list->size();
}

size_t live_keyvals() {
  std::lock_guard<std::mutex> lock(mutex);
  return keyvals.live();
}

}  // namespace ferry::attributes
