/*
 * The MPI tool information interface (MPI-4.0 §15.3): MPI_T works before
 * MPI_Init, shows the FERRY_* settings as control variables with their
 * current values (the test runs with FERRY_SPIN_US=123), takes writes of
 * the settings that may change at run time and refuses the others, sorts
 * them into categories under "ferry" (every variable in exactly one), and
 * returns the MPI_T error codes for bad indices, names and handles, and for
 * calls outside MPI_T_init_thread/MPI_T_finalize. Performance variables and
 * events: tool_pvars.c, tool_events.c.
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
  /* A run-time setting: writable (scope LOCAL), and the write reads back. */
  int scope = 0;
  CHECK(MPI_T_cvar_get_info(find_cvar("FERRY_SPIN_US"), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope) ==
            MPI_SUCCESS && scope == MPI_T_SCOPE_LOCAL, "FERRY_SPIN_US scope %d", scope);
  int written = 77;
  CHECK(MPI_T_cvar_write(h, &written) == MPI_SUCCESS, "writing FERRY_SPIN_US");
  CHECK(MPI_T_cvar_read(h, &value) == MPI_SUCCESS && value == 77, "FERRY_SPIN_US reads %d after writing 77", value);
  written = -5;
  CHECK(MPI_T_cvar_write(h, &written) == MPI_T_ERR_INVALID, "a negative duration was taken");
  CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL, "handle_free");
  CHECK(MPI_T_cvar_read(h, &value) == MPI_T_ERR_INVALID_HANDLE, "reading a freed handle");

  /* A string setting at its default. */
  char text[512];
  CHECK(MPI_T_cvar_handle_alloc(find_cvar("FERRY_WAIT"), NULL, &h, &count) == MPI_SUCCESS &&
            count <= (int)sizeof text, "handle_alloc(FERRY_WAIT): count %d", count);
  CHECK(MPI_T_cvar_read(h, text) == MPI_SUCCESS && strcmp(text, "auto") == 0, "FERRY_WAIT reads '%s'", text);
  /* Read once at start-up: read-only, and a write is refused for good. */
  CHECK(MPI_T_cvar_get_info(find_cvar("FERRY_WAIT"), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope) ==
            MPI_SUCCESS && scope == MPI_T_SCOPE_READONLY, "FERRY_WAIT scope %d", scope);
  CHECK(MPI_T_cvar_write(h, "spin") == MPI_T_ERR_CVAR_SET_NEVER, "a write of FERRY_WAIT was not refused");
  CHECK(MPI_T_cvar_read(h, text) == MPI_SUCCESS && strcmp(text, "auto") == 0, "FERRY_WAIT reads '%s'", text);
  CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS, "handle_free");

  /* Errors. */
  int index = 0;
  CHECK(MPI_T_cvar_get_index("FERRY_NO_SUCH_SETTING", &index) == MPI_T_ERR_INVALID_NAME, "unknown name");
  CHECK(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
        "index past the end");
  CHECK(MPI_T_cvar_handle_alloc(-1, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX, "negative index");

  /* Categories: "ferry" is the parent of the others; every variable is in exactly one. */
  int ncat = 0, root = -1;
  CHECK(MPI_T_category_get_num(&ncat) == MPI_SUCCESS && ncat >= 4, "%d categories", ncat);
  CHECK(MPI_T_category_get_index("ferry", &root) == MPI_SUCCESS, "category_get_index(ferry)");
  int nsub = 0;
  CHECK(MPI_T_category_get_info(root, NULL, NULL, NULL, NULL, NULL, NULL, &nsub) == MPI_SUCCESS && nsub == ncat - 1,
        "ferry has %d subcategories of %d categories", nsub, ncat);
  int *subs = malloc(sizeof(int) * (size_t)nsub);
  CHECK(MPI_T_category_get_categories(root, nsub, subs) == MPI_SUCCESS, "category_get_categories");
  for (int i = 0; i < nsub; ++i) CHECK(subs[i] != root && subs[i] >= 0 && subs[i] < ncat, "subcategory %d", subs[i]);
  free(subs);
  int *seen = calloc((size_t)num, sizeof(int));
  int npvar_total = 0, npvar_listed = 0;
  CHECK(MPI_T_pvar_get_num(&npvar_total) == MPI_SUCCESS, "pvar_get_num");
  for (int c = 0; c < ncat; ++c) {
    char cname[64];
    int cname_len = sizeof cname, ncvars = -1, npvars = -1, nevents = -1, back = -1;
    CHECK(MPI_T_category_get_info(c, cname, &cname_len, NULL, NULL, &ncvars, &npvars, NULL) == MPI_SUCCESS,
          "category_get_info(%d)", c);
    CHECK(strncmp(cname, "ferry", 5) == 0, "category %d is '%s'", c, cname);
    CHECK(MPI_T_category_get_index(cname, &back) == MPI_SUCCESS && back == c, "category_get_index(%s)", cname);
    CHECK(MPI_T_category_get_num_events(c, &nevents) == MPI_SUCCESS && nevents >= 0, "category_get_num_events");
    int *list = malloc(sizeof(int) * (size_t)(ncvars + 1));
    CHECK(MPI_T_category_get_cvars(c, ncvars, list) == MPI_SUCCESS, "category_get_cvars(%s)", cname);
    for (int i = 0; i < ncvars; ++i) {
      CHECK(list[i] >= 0 && list[i] < num, "%s lists cvar %d", cname, list[i]);
      ++seen[list[i]];
    }
    free(list);
    npvar_listed += npvars;
  }
  for (int i = 0; i < num; ++i) CHECK(seen[i] == 1, "cvar %d is in %d categories", i, seen[i]);
  free(seen);
  CHECK(npvar_listed == npvar_total, "categories list %d of %d pvars", npvar_listed, npvar_total);
  int tcat = -1, stamp = -1, stamp2 = -2;
  CHECK(MPI_T_category_get_index("ferry.transport", &tcat) == MPI_SUCCESS, "category ferry.transport");
  CHECK(MPI_T_category_get_index("ferry.none", &tcat) == MPI_T_ERR_INVALID_NAME, "unknown category");
  CHECK(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
        "category past the end");
  CHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS && MPI_T_category_changed(&stamp2) == MPI_SUCCESS &&
            stamp == stamp2, "category_changed moved without a change");

  /* Sessions. */
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
