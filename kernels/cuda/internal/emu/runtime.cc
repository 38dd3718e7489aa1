// The emulator's launcher and scheduler (see emu.h). Fibers start once per
// launch through ucontext and then switch with _setjmp/_longjmp, which,
// unlike swapcontext, make no system call.
#undef _FORTIFY_SOURCE  // its longjmp check rejects jumps between stacks
#include <setjmp.h>
#include <stdlib.h>
#include <ucontext.h>

#include <map>
#include <string>
#include <vector>

#include "emu.h"

namespace emu {

thread* cur;
dim3 block_dim, grid_dim;

int emulated_arch = 90;
int arch() { return emulated_arch; }

namespace {

std::map<std::string, kernel>& registry() {
  static std::map<std::string, kernel> r;
  return r;
}

enum state { ready, at_block, at_warp, block_done, done };

struct fiber {
  thread t;
  ucontext_t ctx;  // to start the fiber
  jmp_buf jb;      // where it waits
  state st;
  uint64_t published;
  std::vector<char> stack;
};

std::vector<fiber> fibers;  // the threads of a block (sync kernels)
fiber* running;             // nullptr when threads run one after another
jmp_buf scheduler;
ucontext_t starter;
std::vector<unsigned char> shared_mem;
const kernel* launched;
const uint64_t* launch_args;
std::vector<dim3> blocks;  // the grid, in launch order
std::string failure;

void fail(const std::string& why) {
  if (failure.empty()) failure = why;
}

// park leaves the running fiber in state s and returns to the scheduler;
// the fiber resumes here when released.
void park(state s) {
  running->st = s;
  if (_setjmp(running->jb) == 0) _longjmp(scheduler, 1);
}

// wait parks the running fiber at a barrier.
void wait(state s) {
  if (running == nullptr) {
    fail("a barrier in a kernel registered without synchronisation");
    return;
  }
  park(s);
}

// entry is a fiber's body: the kernel for every block of the grid, parked
// between blocks until the whole block has finished.
void entry(int i) {
  for (dim3 b : blocks) {
    fibers[i].t.block = b;
    if (failure.empty()) launched->call(launched->fn, launch_args);
    running = &fibers[i];
    park(block_done);
  }
  running->st = done;
  _longjmp(scheduler, 1);
}

// schedule runs the fibers until every one is done, releasing a barrier
// when every live participant (a block's or a warp's threads that have not
// finished the block) has arrived, and the next block when all have
// finished this one.
void schedule() {
  int n = int(fibers.size());
  for (int i = 0; i < n; i++) {
    fiber& f = fibers[i];
    f.st = ready;
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack.data();
    f.ctx.uc_stack.ss_size = f.stack.size();
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, reinterpret_cast<void (*)()>(entry), 1, i);
  }
  std::vector<bool> started(n, false);
  for (;;) {
    for (int i = 0; i < n; i++) {
      fiber& f = fibers[i];
      if (f.st != ready) continue;
      running = &f;
      cur = &f.t;
      if (_setjmp(scheduler) == 0) {
        if (!started[i]) {
          started[i] = true;
          swapcontext(&starter, &f.ctx);
        } else {
          _longjmp(f.jb, 1);
        }
      }
    }
    running = nullptr;
    int live = 0, atBlock = 0, finished = 0;
    for (fiber& f : fibers) {
      live += f.st != done && f.st != block_done;
      atBlock += f.st == at_block;
      finished += f.st == block_done;
    }
    if (finished == n) {  // next block
      for (fiber& f : fibers) f.st = ready;
      continue;
    }
    if (live == 0) return;  // every fiber done
    bool released = false;
    if (atBlock == live) {
      for (fiber& f : fibers)
        if (f.st == at_block) f.st = ready;
      released = true;
    }
    for (int w = 0; w * 32 < n; w++) {
      int wl = 0, wa = 0;
      for (int i = w * 32; i < n && i < w * 32 + 32; i++) {
        wl += fibers[i].st != done && fibers[i].st != block_done;
        wa += fibers[i].st == at_warp;
      }
      if (wl > 0 && wa == wl) {
        for (int i = w * 32; i < n && i < w * 32 + 32; i++)
          if (fibers[i].st == at_warp) fibers[i].st = ready;
        released = true;
      }
    }
    if (!released) {
      fail("deadlock: threads wait at different barriers");
      return;
    }
  }
}

}  // namespace

void add(const char* name, kernel k) { registry()[name] = k; }

unsigned char* dynamic_shared() { return shared_mem.data(); }

void syncthreads() { wait(at_block); }

uint64_t exchange(uint64_t v, int src) {
  if (running == nullptr) {
    fail("a warp shuffle in a kernel registered without synchronisation");
    return v;
  }
  int self = int(running - fibers.data());
  int base = self / 32 * 32;
  running->published = v;
  wait(at_warp);  // every lane has published
  uint64_t out = src >= 0 && base + src < int(fibers.size()) ? fibers[base + src].published : v;
  wait(at_warp);  // every lane has read
  return out;
}

}  // namespace emu

using namespace emu;

extern "C" {

// emu_launch runs a kernel to completion; it returns NULL or an error
// message (valid until the next launch).
const char* emu_launch(const char* name, int gx, int gy, int gz, int block, int shared, const uint64_t* args,
                       int nargs) {
  static std::string err;
  auto it = registry().find(name);
  if (it == registry().end()) return (err = std::string("no kernel ") + name).c_str();
  const kernel& k = it->second;
  if (k.params != nargs)
    return (err = std::string(name) + ": " + std::to_string(nargs) + " arguments for " + std::to_string(k.params) +
                  " parameters")
        .c_str();
  if (block < 1 || block > 1024 || (k.sync && block % 32 != 0))
    return (err = std::string(name) + ": bad block size " + std::to_string(block)).c_str();
  launched = &k;
  launch_args = args;
  failure.clear();
  block_dim = dim3{unsigned(block), 1, 1};
  grid_dim = dim3{unsigned(gx), unsigned(gy), unsigned(gz)};
  shared_mem.assign(size_t(shared) + 16, 0xAB);  // garbage, as on a GPU
  blocks.clear();
  for (int z = 0; z < gz; z++)
    for (int y = 0; y < gy; y++)
      for (int x = 0; x < gx; x++) blocks.push_back(dim3{unsigned(x), unsigned(y), unsigned(z)});
  if (k.sync) {
    fibers.resize(block);
    for (int i = 0; i < block; i++) {
      fibers[i].t.idx = dim3{unsigned(i), 0, 0};
      fibers[i].stack.resize(256 << 10);
    }
    schedule();
  } else {
    thread seq;
    cur = &seq;
    for (dim3 b : blocks) {
      seq.block = b;
      for (int i = 0; i < block && failure.empty(); i++) {
        seq.idx = dim3{unsigned(i), 0, 0};
        k.call(k.fn, args);
      }
    }
  }
  if (!failure.empty()) return (err = std::string(name) + ": " + failure).c_str();
  return nullptr;
}

void* emu_alloc(int64_t bytes) { return aligned_alloc(256, size_t((bytes + 255) / 256 * 256)); }
void emu_free(uint64_t p) { free(reinterpret_cast<void*>(p)); }
void emu_copy(uint64_t dst, uint64_t src, int64_t bytes) {
  memmove(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), size_t(bytes));
}
void emu_zero(uint64_t p, int64_t bytes) { memset(reinterpret_cast<void*>(p), 0, size_t(bytes)); }
void emu_fill(uint64_t p, int b, int64_t bytes) { memset(reinterpret_cast<void*>(p), b, size_t(bytes)); }
void emu_to_device(uint64_t dst, const void* src, int64_t bytes) {
  memcpy(reinterpret_cast<void*>(dst), src, size_t(bytes));
}
void emu_to_host(void* dst, uint64_t src, int64_t bytes) {
  memcpy(dst, reinterpret_cast<const void*>(src), size_t(bytes));
}
}

extern "C" void emu_set_arch(int a) { emu::emulated_arch = a; }
extern "C" int emu_arch() { return emu::emulated_arch; }
