/* A stand-in libibverbs.so.1 for testing the verbs transport's loader path
 * without RDMA hardware: it exports every function the transport resolves,
 * and shows one device, "fake0", whose only port is down, or active when
 * FAKE_IBVERBS_PORT_ACTIVE is set (for the start-up checks that come before
 * any resource is made: the locked-memory limit). Tests point
 * LD_LIBRARY_PATH at it. Nothing past the port and GID queries is
 * implemented: a transport that got further would find NULL and fail,
 * which the tests would report. */
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* verbs.h wraps these two in macros; the library exports plain functions. */
#undef ibv_query_port
#undef ibv_reg_mr

static struct ibv_device fake_device = {.name = "fake0", .dev_name = "uverbs0"};
static struct ibv_device* fake_list[] = {&fake_device, NULL};

struct ibv_device** ibv_get_device_list(int* n) {
  if (n) *n = 1;
  return fake_list;
}
void ibv_free_device_list(struct ibv_device** list) { (void)list; }
const char* ibv_get_device_name(struct ibv_device* d) { return d->name; }
struct ibv_context* ibv_open_device(struct ibv_device* d) {
  struct ibv_context* c = calloc(1, sizeof *c);
  c->device = d;
  return c;
}
int ibv_close_device(struct ibv_context* c) {
  free(c);
  return 0;
}
int ibv_query_device(struct ibv_context* c, struct ibv_device_attr* a) {
  (void)c;
  memset(a, 0, sizeof *a);
  a->phys_port_cnt = 1;
  return 0;
}
/* The exported function fills the older, shorter struct, a prefix of ibv_port_attr. */
int ibv_query_port(struct ibv_context* c, uint8_t port, struct _compat_ibv_port_attr* compat) {
  struct ibv_port_attr* a = (struct ibv_port_attr*)compat;
  (void)c, (void)port;
  memset(a, 0, offsetof(struct ibv_port_attr, flags));
  a->state = getenv("FAKE_IBVERBS_PORT_ACTIVE") ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
  a->lid = 7;
  a->link_layer = IBV_LINK_LAYER_INFINIBAND;
  a->active_mtu = IBV_MTU_4096;
  a->gid_tbl_len = 1;
  return 0;
}
int ibv_query_gid(struct ibv_context* c, uint8_t port, int index, union ibv_gid* g) {
  (void)c, (void)port, (void)index;
  memset(g, 0, sizeof *g);
  return 0;
}
/* Never reached with the port down. */
struct ibv_pd* ibv_alloc_pd(struct ibv_context* c) { (void)c; return NULL; }
int ibv_dealloc_pd(struct ibv_pd* p) { (void)p; return -1; }
struct ibv_mr* ibv_reg_mr(struct ibv_pd* p, void* a, size_t n, int f) { (void)p, (void)a, (void)n, (void)f; return NULL; }
int ibv_dereg_mr(struct ibv_mr* m) { (void)m; return -1; }
struct ibv_comp_channel* ibv_create_comp_channel(struct ibv_context* c) { (void)c; return NULL; }
int ibv_destroy_comp_channel(struct ibv_comp_channel* c) { (void)c; return -1; }
struct ibv_cq* ibv_create_cq(struct ibv_context* c, int n, void* x, struct ibv_comp_channel* ch, int v) {
  (void)c, (void)n, (void)x, (void)ch, (void)v;
  return NULL;
}
int ibv_destroy_cq(struct ibv_cq* c) { (void)c; return -1; }
int ibv_get_cq_event(struct ibv_comp_channel* ch, struct ibv_cq** c, void** x) { (void)ch, (void)c, (void)x; return -1; }
void ibv_ack_cq_events(struct ibv_cq* c, unsigned n) { (void)c, (void)n; }
struct ibv_srq* ibv_create_srq(struct ibv_pd* p, struct ibv_srq_init_attr* a) { (void)p, (void)a; return NULL; }
int ibv_destroy_srq(struct ibv_srq* s) { (void)s; return -1; }
struct ibv_qp* ibv_create_qp(struct ibv_pd* p, struct ibv_qp_init_attr* a) { (void)p, (void)a; return NULL; }
int ibv_modify_qp(struct ibv_qp* q, struct ibv_qp_attr* a, int m) { (void)q, (void)a, (void)m; return -1; }
int ibv_destroy_qp(struct ibv_qp* q) { (void)q; return -1; }
struct ibv_ah* ibv_create_ah(struct ibv_pd* p, struct ibv_ah_attr* a) { (void)p, (void)a; return NULL; }
int ibv_destroy_ah(struct ibv_ah* a) { (void)a; return -1; }
