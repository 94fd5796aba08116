/*
 * The MPI tool information interface (MPI-3.1 §14.3): MPI_T works before
 * MPI_Init, shows the FERRY_* settings as control variables with their
 * current values (the test runs with FERRY_SPIN_US=123), refuses writes, has
 * one category holding them, no performance variables yet but working
 * sessions, and returns the MPI_T error codes for bad indices, names and
 * handles, and for calls outside MPI_T_init_thread/MPI_T_finalize.
 */
#define TEST_NAME "tool"
#include "mpitest.h"

static int find_cvar(const char *name) {
  int index = -1;
  CHECK(MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS, "MPI_T_cvar_get_index(%s) failed", name);
  return index;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread before MPI_Init");
  int num = 0;
  CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS && num > 10, "%d control variables", num);

  /* Every variable describes itself; names are FERRY_ settings. */
  for (int i = 0; i < num; ++i) {
    char name[128], desc[512];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    CHECK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind, &scope) ==
              MPI_SUCCESS, "get_info(%d)", i);
    CHECK(strncmp(name, "FERRY_", 6) == 0 && name_len == (int)strlen(name) + 1, "variable %d is '%s' (%d)", i, name,
          name_len);
    CHECK(desc_len > 1 && type != MPI_DATATYPE_NULL && bind == MPI_T_BIND_NO_OBJECT, "variable %s's info", name);
    CHECK(find_cvar(name) == i, "get_index(%s) is not %d", name, i);
  }
  /* Lengths only, with a null buffer. */
  int need = 0;
  CHECK(MPI_T_cvar_get_info(find_cvar("FERRY_WAIT"), NULL, &need, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
            MPI_SUCCESS && need == (int)strlen("FERRY_WAIT") + 1, "name length %d", need);

  /* FERRY_SPIN_US is set to 123 for this test. */
  MPI_T_cvar_handle h;
  int count = 0, value = 0;
  CHECK(MPI_T_cvar_handle_alloc(find_cvar("FERRY_SPIN_US"), NULL, &h, &count) == MPI_SUCCESS && count == 1,
        "handle_alloc(FERRY_SPIN_US): count %d", count);
  CHECK(MPI_T_cvar_read(h, &value) == MPI_SUCCESS && value == 123, "FERRY_SPIN_US reads %d, expected 123", value);
  CHECK(MPI_T_cvar_write(h, &value) == MPI_T_ERR_CVAR_SET_NEVER, "a write was not refused");
  CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL, "handle_free");
  CHECK(MPI_T_cvar_read(h, &value) == MPI_T_ERR_INVALID_HANDLE, "reading a freed handle");

  /* A string setting at its default. */
  char text[512];
  CHECK(MPI_T_cvar_handle_alloc(find_cvar("FERRY_WAIT"), NULL, &h, &count) == MPI_SUCCESS &&
            count <= (int)sizeof text, "handle_alloc(FERRY_WAIT): count %d", count);
  CHECK(MPI_T_cvar_read(h, text) == MPI_SUCCESS && strcmp(text, "auto") == 0, "FERRY_WAIT reads '%s'", text);
  CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS, "handle_free");

  /* Errors. */
  int index = 0;
  CHECK(MPI_T_cvar_get_index("FERRY_NO_SUCH_SETTING", &index) == MPI_T_ERR_INVALID_NAME, "unknown name");
  CHECK(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
        "index past the end");
  CHECK(MPI_T_cvar_handle_alloc(-1, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX, "negative index");

  /* One category with every variable. */
  int ncat = 0, ncvars = 0, npvars = -1, nsub = -1;
  CHECK(MPI_T_category_get_num(&ncat) == MPI_SUCCESS && ncat == 1, "%d categories", ncat);
  char cname[64];
  int cname_len = sizeof cname;
  CHECK(MPI_T_category_get_info(0, cname, &cname_len, NULL, NULL, &ncvars, &npvars, &nsub) == MPI_SUCCESS &&
            ncvars == num && npvars == 0 && nsub == 0, "category 0: %d cvars, %d pvars, %d subcategories", ncvars,
        npvars, nsub);
  int *all = malloc(sizeof(int) * (size_t)num);
  CHECK(MPI_T_category_get_cvars(0, num, all) == MPI_SUCCESS, "category_get_cvars");
  for (int i = 0; i < num; ++i) CHECK(all[i] == i, "category lists %d at %d", all[i], i);
  free(all);
  int cat = -1;
  CHECK(MPI_T_category_get_index(cname, &cat) == MPI_SUCCESS && cat == 0, "category_get_index(%s)", cname);

  /* Performance variables: none, but sessions work. */
  int npvar = -1;
  CHECK(MPI_T_pvar_get_num(&npvar) == MPI_SUCCESS && npvar == 0, "%d performance variables", npvar);
  MPI_T_pvar_session session;
  CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session_create");
  CHECK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all handles");
  CHECK(MPI_T_pvar_session_free(&session) == MPI_SUCCESS && session == MPI_T_PVAR_SESSION_NULL, "session_free");
  CHECK(MPI_T_pvar_session_free(&session) == MPI_T_ERR_INVALID_SESSION, "freeing a session twice");

  /* MPI_T nests around MPI_Init/MPI_Finalize. */
  MPI_Init(&argc, &argv);
  CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS && provided == MPI_THREAD_MULTIPLE,
        "nested MPI_T_init_thread");
  CHECK(MPI_T_finalize() == MPI_SUCCESS, "inner MPI_T_finalize");
  CHECK(MPI_T_cvar_get_num(&num) == MPI_SUCCESS, "MPI_T still initialized once");
  CHECK(MPI_T_finalize() == MPI_SUCCESS, "outer MPI_T_finalize");
  CHECK(MPI_T_cvar_get_num(&num) == MPI_T_ERR_NOT_INITIALIZED, "a call after MPI_T_finalize");
  CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED, "one MPI_T_finalize too many");
  mt_pass();
  MPI_Finalize();
  return 0;
}
