// The asynchronous copies and barriers of Family::Async (cp.async, cp.async.bulk{.tensor},
// mbarrier, fence): their suffixes as decoded (ptx_async.cpp), and what the executor (exec.cpp)
// hands their execution (exec_async.cpp): the block's shared memory, the launch's global memory
// and params, the trace, and the block's pending cp.async groups.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "banklab_emu/emulator.hpp"

namespace banklab::emu {

/// Where cvta.param puts the kernel's params in the generic space: a __grid_constant__ tensor map
/// (a 128-byte param) is named by such an address, and a TMA copy reads it there.
inline constexpr std::uint64_t kGenericParamBase = 0x580000000000ull;

// Inst::async_flags.
inline constexpr std::uint16_t kAsyncCg = 1u << 0;         ///< cp.async.cg (16 bytes only)
inline constexpr std::uint16_t kAsyncCacheHint = 1u << 1;  ///< .L2::cache_hint: the last operand is a cache policy
inline constexpr std::uint16_t kAsyncToGlobal = 1u << 2;   ///< bulk copy / tensor store: shared -> global
inline constexpr std::uint16_t kAsyncFromShared = 1u << 3; ///< cp.async.bulk.shared::cluster.shared::cta (shared -> shared)
inline constexpr std::uint16_t kAsyncParity = 1u << 4;     ///< mbarrier.test_wait/try_wait.parity
inline constexpr std::uint16_t kAsyncExpectTx = 1u << 5;   ///< mbarrier.arrive.expect_tx, arrive_drop.expect_tx
inline constexpr std::uint16_t kAsyncDrop = 1u << 6;       ///< mbarrier.arrive_drop
inline constexpr std::uint16_t kAsyncNoComplete = 1u << 7; ///< mbarrier.arrive.noComplete
inline constexpr std::uint16_t kAsyncNoInc = 1u << 8;      ///< cp.async.mbarrier.arrive.noinc
inline constexpr std::uint16_t kAsyncMbarrier = 1u << 9;   ///< completion .mbarrier::complete_tx::bytes
inline constexpr std::uint16_t kAsyncBulkGroup = 1u << 10; ///< completion .bulk_group

/// Decodes `mnemonic` when its base is one of Family::Async's (cp, mbarrier, fence, membar):
/// true then (inst.family Async, or Unsupported with its reason), false for any other base.
bool decode_async(const std::string& mnemonic, Inst& inst);
/// check_operands() for Family::Async: false when the operands are not what the form takes.
bool async_operands_ok(const Inst& inst);

/// One thread's cp.async whose bytes reach shared memory at its cp.async.wait_group / wait_all.
struct PendingCopy {
  std::uint32_t dst = 0;  ///< shared-window offset
  std::uint8_t size = 0;  ///< cp-size: 4, 8, 16
  unsigned char bytes[16] = {};  ///< read at issue; zeros past src-size
};

/// A block's cp.async state, per thread: the groups committed and not yet waited for, oldest first,
/// and the copies since the last commit_group.
struct AsyncState {
  struct Thread {
    std::vector<std::vector<PendingCopy>> committed;
    std::vector<PendingCopy> open;
  };
  std::vector<Thread> threads;
  bool used = false;
  void reset(unsigned thread_count) {
    if (used || threads.size() != thread_count) threads.assign(thread_count, Thread{});
    used = false;
  }
};

/// What an asynchronous instruction sees of its launch and block.
struct AsyncBlock {
  const Kernel& kernel;
  std::vector<unsigned char>& shared;  ///< the block's shared window (offsets from 0; the first 1 KiB reserved)
  Device& device;
  const std::vector<unsigned char>& params;
  EmuTrace* trace;
  AsyncState& state;
};

/// How an asynchronous instruction ended for its warp.
struct AsyncOutcome {
  enum class Kind { Done, Yield, Fault, NotJudged };
  Kind kind = Kind::Done;
  int lane = 0;          ///< Fault: the lane
  std::string what;      ///< Fault / NotJudged: what happened (the executor adds where)
};

/// Runs `in` (Family::Async) for the lanes of `exec` of warp `warp` (registers `r`: register x 32
/// + lane). Yield: a test_wait/try_wait found its phase not complete in some lane (the results are
/// written): the warp's turn ends, so that the others can arrive.
AsyncOutcome exec_async(AsyncBlock& block, std::vector<std::uint64_t>& r, int warp, const Inst& in, int pc,
                        std::uint32_t exec);

}  // namespace banklab::emu
