/// @file results.hpp
/// @brief What `banklab calibrate` reads and writes: the measurement CSV, Nsight Compute's CSV
///        output, cuobjdump's SASS listing, and the comparison with the model.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "banklab/pattern_io.hpp"
#include "patterns.hpp"

namespace banklab::calibrate {

/// The counters, by name.
inline constexpr const char* kMetricWavefrontsLd = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char* kMetricWavefrontsSt = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr const char* kMetricConflictsLd = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* kMetricConflictsSt = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char* kMetricInstLd = "smsp__inst_executed_op_shared_ld.sum";
inline constexpr const char* kMetricInstSt = "smsp__inst_executed_op_shared_st.sum";
inline constexpr const char* kMetricWavefrontsShared = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";
inline constexpr const char* kMetricWavefrontsAtom = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum";
/// The shared wavefront counters of every kind but LDGSTS (which has none of its own): its
/// wavefronts are kMetricWavefrontsShared minus these.
inline constexpr const char* kOtherSharedWavefronts[] = {
    kMetricWavefrontsLd, kMetricWavefrontsSt, kMetricWavefrontsAtom,
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ipa.sum"};

/// The three counters that measure one instruction kind.
struct OpMetrics {
  const char* wavefronts;    ///< shared-memory wavefronts of this kind
  const char* conflicts;     ///< the bank-conflict counter of this kind
  const char* instructions;  ///< warp instructions of this kind executed
};

/// The counters of `op` (ld/st: the six above; the other kinds: see common/data/README.md).
OpMetrics metrics_for(Op op);

/// The ld/st counters (all six), comma-separated, for `ncu --metrics`.
std::string metric_list();

/// The counters of every op in `patterns` plus the ld/st ones, comma-separated.
std::string metric_list(const std::vector<Pattern>& patterns);

/// The name of the kernel that runs an access of this op and width, e.g. `banklab_cal_ld_w8`.
std::string kernel_name(Op op, int width);

/// The kernel that runs a shared atomic of the family atomop: `banklab_cal_atom_w<width>_<variant>`.
std::string kernel_name(const AtomOpKind& kind);

/// The kernel that runs pattern `p`: ld/st by width; ldsm/stsm by the x1/x2/x4 its mask
/// (0xff / 0xffff / other) gives and `.trans`; cpasync by width and `.cg`; atom by width and
/// red (variant_of(p.id)). E.g. `banklab_cal_ldsm_x4_trans`, `banklab_cal_atom_w8_red`.
std::string kernel_name(const Pattern& p);

/// Every kernel name of the worker, in order.
std::vector<std::string> all_kernel_names();

/// Write measurements in the format of common/data/h200_wavefronts_named.csv plus a final
/// `gpu` column (commas in the GPU name become spaces).
void write_measurements_csv(std::ostream& out, const std::vector<Measurement>& rows);

/// One profiled kernel launch from ncu's CSV output.
struct NcuLaunch {
  long id = -1;                           ///< ncu's launch ID (0, 1, ... in launch order)
  std::string kernel;                     ///< the "Kernel Name" column
  std::map<std::string, double> metrics;  ///< metric name -> value
};

/// Parse the CSV that `ncu --csv` prints (details page: one row per launch and metric). Lines
/// that do not start with a quote (ncu's ==PROF== messages, the program's own output) are
/// skipped. @return the launches in ID order. @throws std::runtime_error when no header is found
/// or a row is malformed.
std::vector<NcuLaunch> parse_ncu_csv(const std::string& text);

/// Turn the launches of one ncu run into measurements of `patterns` (launch k ran pattern k).
/// @throws std::runtime_error when the counts do not line up (missing launches, a kernel of the
/// wrong name, a missing metric).
std::vector<Measurement> to_measurements(const std::vector<Pattern>& patterns,
                                         const std::vector<NcuLaunch>& launches,
                                         const std::string& gpu);

/// One kernel's shared-memory instructions in a SASS listing.
struct SassKernel {
  std::string name;                  ///< the function name
  std::vector<std::string> shared;   ///< every LDS/STS/LDSM/STSM/LDGSTS/ATOMS/ATOM/RED opcode, e.g. "LDS.64"
};

/// Parse `cuobjdump -sass` output: each `Function : name` and its LDS/STS opcodes.
std::vector<SassKernel> parse_sass(const std::string& text);

/// Check that every calibrate kernel has exactly one shared-memory instruction of its op and
/// width (LDS/STS of the width, LDSM, STSM, LDGSTS, ATOMS). @return the problems (empty when all is well).
std::vector<std::string> check_sass(const std::vector<SassKernel>& kernels);

/// Compare measurements with the model, print every difference with the model's explanation
/// and the line `N/M patterns match`. @return the number of patterns that differ.
int compare_with_model(const std::vector<Measurement>& rows, std::ostream& out);

}  // namespace banklab::calibrate
