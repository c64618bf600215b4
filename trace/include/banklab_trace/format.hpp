/// @file format.hpp
/// @brief The binary records of `banklab trace`: what the device patch writes, what the
///        injection library merges and saves, and what the host analysis reads.
///
/// One DeviceRecord is one WARP instruction: the patch groups the lanes of a warp that reached
/// the same pc with `__match_any_sync`, and the first of them appends the record. Plain C
/// layout (no padding surprises), shared by the patch (nvcc) and the host (g++).
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace banklab::trace {

/// What a record describes. The model explains kKindAccess (LDS, STS, ATOMS: the flags say
/// which), kKindCpAsync (the shared side of LDGSTS) and kKindLdmatrix (LDSM/STSM); the other
/// kinds are listed with counts only.
enum RecordKind : uint8_t {
  kKindAccess = 0,       ///< LDS/STS/ATOMS through the memory-access callback (flags say which)
  kKindCpAsync = 1,      ///< cp.async global -> shared (width = bytes per lane)
  kKindLdmatrix = 2,     ///< ldmatrix (flags read) / stmatrix (flags write); `reserved` = matrices (1, 2, 4)
  kKindBulkCopy = 3,     ///< TMA / bulk copies between global and shared memory
  kKindRemoteShared = 4, ///< distributed shared memory (another block's shared memory)
  kKindWgmma = 5,        ///< wgmma reading operands from shared memory
  kKindAsyncStore = 6,   ///< st.async / red.async into a cluster's shared memory
  kKindBulkShared = 7,   ///< bulk copies and reductions shared -> shared, bulk reductions to global
  kKindMemsetShared = 8, ///< shared-memory memset (bulk)
  kKindTmaLoad = 9,      ///< cp.async.bulk.tensor global -> shared (UTMALDG): see kFlagTensorMap / kFlagTmaBytes
  kKindTmaStore = 10,    ///< cp.async.bulk.tensor shared -> global (UTMASTG)
  kKindCount = 11
};

/// kKindWgmma records written by a tracer that keeps the operands (flag kFlagWgmmaOperands; older
/// trace files carry only matrix A's address in every lane): what SanitizerCallbackWarpgroupMMAAsync
/// gives (sanitizer_patching.h), the same in every lane of the warp, in the record's first words:
inline constexpr uint8_t kFlagWgmmaOperands = 0x20;
inline constexpr int kWgmmaAddressA = 0;  ///< offset[0]: matrix A's shared-window address (valid if its size is not 0)
inline constexpr int kWgmmaSizeA = 1;     ///< offset[1]: bytes of A read from shared memory; 0: A in registers
inline constexpr int kWgmmaAddressB = 2;  ///< offset[2]: matrix B's shared-window address
inline constexpr int kWgmmaSizeB = 3;     ///< offset[3]: bytes of B read from shared memory
inline constexpr int kWgmmaFlags = 4;     ///< offset[4]: Sanitizer_WarpgroupMMAAsyncFlags (1: ends a commit group)
inline constexpr int kWgmmaWarpMask = 5;  ///< offset[5]: the callback's warpMask (0: the operands are not read)
/// `reserved` of a kKindWgmma record: the warp's rank in its warpgroup (0..3), so that the host
/// can give the warpgroup's wavefronts to its four warps without rounding (decode()).

/// kKindTmaLoad / kKindTmaStore: the device patch copies the 128-byte CUtensorMap the instruction
/// names into offset[0..31] and sets kFlagTensorMap; the injection library looks the image up
/// among the tensor maps cuTensorMapEncodeTiled made in the process and rewrites the record
/// before merging it: kFlagTmaBytes with offset[0] = the box's bytes, offset[1] = its swizzle
/// (CUtensorMapSwizzle), offset[2] = the element's bytes, offset[3] = the rank, rest 0; or,
/// when no encoded map has that image (made on the device, or encoded before the tracer attached),
/// kFlagTmaUnknownMap with every offset 0. `width` = the callback's dimension count.
inline constexpr uint8_t kFlagTensorMap = 0x40;
inline constexpr uint8_t kFlagTmaBytes = 0x80;
inline constexpr uint8_t kFlagTmaUnknownMap = 0x08;
inline constexpr int kTmaBytes = 0, kTmaSwizzle = 1, kTmaElementBytes = 2, kTmaRank = 3;

/// Flags of the memory-access callback (Sanitizer_DeviceMemoryFlags): read 0x1, write 0x2;
/// an atomic reads and writes (0x3).
inline constexpr uint8_t kFlagRead = 0x1;
inline constexpr uint8_t kFlagWrite = 0x2;
inline constexpr uint8_t kFlagAtomic = kFlagRead | kFlagWrite;

/// kKindCpAsync records written by a tracer that keeps the global side (the flags of older
/// trace files are 0 there): bits 24..28 of `offset[i]` hold lane i's SOURCE bank, (global
/// address / 4) % 32, and bit 29 says lane i had a source (the callback gets none for a
/// zero-filling copy); the shared offset is the low 24 bits, as for every record. The source
/// bank is all the model's cp.async rule uses of the global address (summarize_async_copy()).
inline constexpr uint8_t kFlagSourceBanks = 0x10;
inline constexpr uint32_t kSourceBankShift = 24;
inline constexpr uint32_t kSourceKnownBit = 1u << 29;

/// Lanes per warp (the patch and the host agree on it).
inline constexpr int kRecordLanes = 32;

/// One warp instruction as the patch saw it. `offset[i]` is lane i's offset in the shared
/// window (not yet corrected for the reserved bytes; cp.async: with its source bank above bit
/// 24, kFlagSourceBanks) and is meaningful only when bit i of `mask` is set.
struct DeviceRecord {
  uint64_t pc;                     ///< pc of the instruction (as the sanitizer reports it)
  uint32_t mask;                   ///< lanes that executed it
  uint8_t kind;                    ///< RecordKind
  uint8_t width;                   ///< bytes per lane (1, 2, 4, 8, 16); 0 for unmodelled kinds
  uint8_t flags;                   ///< Sanitizer_DeviceMemoryFlags (kKindAccess); kFlagSourceBanks (kKindCpAsync)
  uint8_t reserved;                ///< kKindLdmatrix: the number of matrices; otherwise 0
  uint32_t offset[kRecordLanes];   ///< per lane, offset in the shared window
};
static_assert(sizeof(DeviceRecord) == 144, "DeviceRecord is 144 bytes on host and device");
// The patch writes mask, kind, width, flags and reserved as one little-endian 8-byte word.
static_assert(offsetof(DeviceRecord, mask) == 8 && offsetof(DeviceRecord, kind) == 12 &&
                  offsetof(DeviceRecord, width) == 13 && offsetof(DeviceRecord, flags) == 14 &&
                  offsetof(DeviceRecord, reserved) == 15 && offsetof(DeviceRecord, offset) == 16,
              "DeviceRecord's header word");

/// The device-side buffer header the patch receives as its user data.
///
/// Records 0 .. capacity - 1 of a launch go into `records` (device memory, copied back when the
/// launch ends). A launch that appends more goes on in `ring`, pinned host memory the device
/// writes directly: record capacity + t takes ring slot t % ring_capacity once the host has drained
/// ticket t - ring_capacity (`*drained` > t - ring_capacity; the writer waits until then), and
/// publishes it by writing ready[t % ring_capacity] = t + 1 last. A host thread drains the ring
/// while the kernel runs (src/drain.cpp), so no record is lost at any size of program.
struct MergeEntry;
struct DeviceBuffer {
  unsigned long long count;        ///< records appended this launch (may exceed capacity)
  unsigned long long capacity;     ///< records that fit in `records`
  DeviceRecord* records;           ///< the records themselves
  DeviceRecord* ring;              ///< pinned host: the overflow ring (nullptr: none, overflow is dropped)
  unsigned long long* ready;       ///< pinned host: per ring slot, the ticket + 1 published there
  unsigned long long* drained;     ///< pinned host: tickets below this one are drained (slots free)
  unsigned long long ring_capacity;  ///< records in `ring`
  // Device-side merging (MergeEntry; nullptr `merge_slots`: off): a warp instruction of the
  // per-lane callbacks whose canonical record is already in the table adds one to its count;
  // a new one takes an entry; only when the table is full (or its probes run out) is the record
  // appended as above. The host copies back the used entries, not one record per warp instruction.
  unsigned* merge_slots;           ///< device: open addressing, entry index + 1 (0 empty, kMergeSlotBusy / _Full)
  unsigned long long merge_mask;   ///< slots - 1 (a power of two)
  MergeEntry* merge_entries;       ///< device: the distinct records of this launch
  unsigned long long merge_capacity;  ///< entries in `merge_entries`
  unsigned long long merge_used;   ///< entries taken this launch (may pass capacity: those fell back)
};

/// One distinct warp record of a launch, merged on the device. `record` is canonical as the
/// host's Merger makes it (lanes outside `mask` 0, `reserved` 0 for kKindAccess), so that the
/// host merges entries and appended records of the same instruction into one. The count is split
/// over kMergeShards counters (by SM) so that the warps of many SMs running the same instruction
/// do not all add to one word; the host sums them.
inline constexpr int kMergeShards = 8;
struct MergeEntry {
  DeviceRecord record;
  unsigned long long hash;
  unsigned long long count[kMergeShards];
};
static_assert(sizeof(MergeEntry) == 144 + 8 + 8 * kMergeShards, "MergeEntry has no padding");
inline constexpr unsigned kMergeSlotBusy = 0xffffffffu;  ///< a warp is writing this slot's entry
inline constexpr unsigned kMergeSlotFull = 0xfffffffeu;  ///< claimed when no entry was left: never matches
inline constexpr int kMergeProbes = 16;                  ///< slots a record tries before it is appended

/// On sm_90 the shared window starts with 1 KiB the driver reserves: the first `__shared__`
/// variable sits at 0x400. Records keep the raw window offset; the host subtracts this before
/// handing offsets to the model (banks do not change: 0x400 is a multiple of 128).
inline constexpr uint32_t kSharedWindowReservedBytes = 0x400;

/// In a cluster launch, the shared-window offset of block rank r is r * 2^24 plus the local
/// offset (seen on the H200 in cuBLAS's cluster GEMMs): the host keeps the low 24 bits.
inline constexpr uint32_t kClusterRankStride = 1u << 24;

}  // namespace banklab::trace
