/**
 * @module agent/pmix/shim-source
 * The C source of Spur's PMIx server module, compiled at run time by the TinyCC inside Bun
 * (`cc` from bun:ffi): no C compiler and no header is needed on a node. libpmix calls a server
 * module from its own progress thread, and a JavaScript callback called from another thread
 * cannot return a value nor read its arguments once it runs (measured with Bun 1.4: the C caller
 * sees 0 at once, the arguments' memory is gone by then). So these functions answer libpmix in C
 * at once, copy what the step's server needs into a malloc'd event and write its address into a
 * pipe that the JavaScript side reads (agent/pmix/server.ts). A fence is finished later from
 * JavaScript with `spur_fence_done`, which calls libpmix's callback (libpmix moves that work
 * onto its own thread). Event layout: see EVENT_OFFSETS in libpmix.ts; proc: pmix_proc_t of
 * PMIx 4 (a 256-byte namespace, then the rank).
 */

export const SHIM_SOURCE = `
typedef unsigned long size_t;
typedef unsigned int uint32_t;
extern void *calloc(size_t, size_t);
extern void *malloc(size_t);
extern void free(void *);
extern void *memcpy(void *, const void *, size_t);
extern long write(int, const void *, size_t);
extern int pipe(int *);

typedef struct { char nspace[256]; uint32_t rank; } spur_proc;
typedef void (*spur_op_cb)(int status, void *cbdata);
typedef void (*spur_release_cb)(void *data);
typedef void (*spur_modex_cb)(int status, const char *data, size_t ndata, void *cbdata, spur_release_cb release, void *release_data);

typedef struct {
  int kind;
  uint32_t rank;
  int status;
  int unused;
  size_t nprocs;
  char *data;
  size_t ndata;
  spur_modex_cb cbfunc;
  void *cbdata;
  char text[256];
} spur_event;

#define SPUR_SUCCESS 0
#define SPUR_ERROR (-1)
#define SPUR_OPERATION_SUCCEEDED (-157)

static int spur_fds[2] = {-1, -1};
static void *spur_module[28];

static int spur_post(spur_event *ev) {
  if (write(spur_fds[1], &ev, sizeof ev) != (long) sizeof ev) {
    free(ev->data);
    free(ev);
    return SPUR_ERROR;
  }
  return SPUR_SUCCESS;
}

static spur_event *spur_new(int kind, const spur_proc *proc) {
  spur_event *ev = calloc(1, sizeof(spur_event));
  if (ev == 0) return 0;
  ev->kind = kind;
  if (proc != 0) {
    ev->rank = proc->rank;
    memcpy(ev->text, proc->nspace, 255);
  }
  return ev;
}

static int spur_connected(const spur_proc *proc, void *object, spur_op_cb cb, void *cbdata) {
  spur_event *ev = spur_new(1, proc);
  if (ev != 0) spur_post(ev);
  return SPUR_OPERATION_SUCCEEDED;
}

static int spur_finalized(const spur_proc *proc, void *object, spur_op_cb cb, void *cbdata) {
  spur_event *ev = spur_new(2, proc);
  if (ev != 0) spur_post(ev);
  return SPUR_OPERATION_SUCCEEDED;
}

/* the client stays inside PMIx_Abort until the step is killed, as under Slurm's stepd */
static int spur_abort(const spur_proc *proc, void *object, int status, const char *msg, spur_proc *procs, size_t nprocs, spur_op_cb cb, void *cbdata) {
  spur_event *ev = spur_new(3, proc);
  size_t i;
  if (ev == 0) return SPUR_ERROR;
  ev->status = status;
  ev->nprocs = nprocs;
  for (i = 0; msg != 0 && i < 255 && msg[i] != 0; i++) ev->text[i] = msg[i];
  ev->text[i] = 0;
  return spur_post(ev);
}

static int spur_fence(const spur_proc *procs, size_t nprocs, const void *info, size_t ninfo, char *data, size_t ndata, spur_modex_cb cbfunc, void *cbdata) {
  spur_event *ev = spur_new(4, nprocs > 0 ? procs : 0);
  if (ev == 0) return SPUR_ERROR;
  ev->nprocs = nprocs;
  ev->cbfunc = cbfunc;
  ev->cbdata = cbdata;
  if (ndata > 0) {
    ev->data = malloc(ndata);
    if (ev->data == 0) {
      free(ev);
      return SPUR_ERROR;
    }
    memcpy(ev->data, data, ndata);
  }
  ev->ndata = ndata;
  return spur_post(ev);
}

int spur_open(void) {
  if (spur_fds[0] >= 0) return spur_fds[0];
  if (pipe(spur_fds) != 0) return -1;
  return spur_fds[0];
}

void *spur_module_table(void) {
  spur_module[0] = (void *) spur_connected;
  spur_module[1] = (void *) spur_finalized;
  spur_module[2] = (void *) spur_abort;
  spur_module[3] = (void *) spur_fence;
  return spur_module;
}

static void spur_release(void *data) { free(data); }

void spur_fence_done(spur_event *ev, int status, const char *data, size_t ndata) {
  char *copy = 0;
  spur_modex_cb cb = ev->cbfunc;
  void *cbdata = ev->cbdata;
  if (ndata > 0) {
    copy = malloc(ndata);
    if (copy == 0) { status = SPUR_ERROR; ndata = 0; }
    else memcpy(copy, data, ndata);
  }
  free(ev->data);
  free(ev);
  cb(status, copy, ndata, cbdata, spur_release, copy);
}

void spur_event_free(spur_event *ev) {
  free(ev->data);
  free(ev);
}
`;
