// The floor under any launch path: cuLaunchKernel called straight from C, timed as the bench times
// a launch (batches of 100, the GPU drained between them, the median batch). Developer probe:
//   gcc -O2 -o launch_floor scripts/launch_floor.c -ldl && ./launch_floor kernel.cubin kernel_name
// (scripts/launch_probe.py builds and runs it on the vector add's cubin).
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef int (*init_t)(unsigned);
typedef int (*devget_t)(int*, int);
typedef int (*ctx_t)(void**, int);
typedef int (*modload_t)(void**, const void*);
typedef int (*getfn_t)(void**, void*, const char*);
typedef int (*launch_t)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**);
typedef int (*sync_t)(void);
typedef int (*alloc_t)(unsigned long long*, size_t);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
int cmp(const void* a, const void* b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  ((init_t)dlsym(h, "cuInit"))(0);
  int dev; ((devget_t)dlsym(h, "cuDeviceGet"))(&dev, 0);
  void* ctx; ((ctx_t)dlsym(h, "cuDevicePrimaryCtxRetain"))(&ctx, dev);
  ((int (*)(void*))dlsym(h, "cuCtxSetCurrent"))(ctx);
  FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
  char* image = malloc(n + 1);
  if (fread(image, 1, n, f) != (size_t)n) return 1;
  image[n] = 0;
  void* mod; int e = ((modload_t)dlsym(h, "cuModuleLoadData"))(&mod, image);
  void* fn; e |= ((getfn_t)dlsym(h, "cuModuleGetFunction"))(&fn, mod, argv[2]);
  unsigned long long buf; ((alloc_t)dlsym(h, "cuMemAlloc_v2"))(&buf, 4096 * 4);
  int count = 1024; void* params[4] = {&buf, &buf, &buf, &count};
  launch_t launch = (launch_t)dlsym(h, "cuLaunchKernel");
  sync_t sync = (sync_t)dlsym(h, "cuCtxSynchronize");
  double times[200];
  for (int r = 0; r < 200; r++) {
    sync(); double t = now();
    for (int i = 0; i < 100; i++) e |= launch(fn, 1, 1, 1, 128, 1, 1, 0, 0, params, 0);
    times[r] = (now() - t) / 100;
  }
  sync();
  qsort(times, 200, sizeof(double), cmp);
  printf("cuLaunchKernel from C: %.2f us (errors %d)\n", times[100], e);
  return 0;
}
