#include "build.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>
#include <vector>

#include "grader/answers.hpp"
#include "grader/context.hpp"
#include "process.hpp"
#include "sha256.hpp"

#ifndef BANKLAB_NVCC
#define BANKLAB_NVCC "/usr/local/cuda/bin/nvcc"
#endif
#ifndef BANKLAB_CUDA_ARCHS
#define BANKLAB_CUDA_ARCHS "90"
#endif
#ifndef BANKLAB_SOURCE_DIR
#define BANKLAB_SOURCE_DIR "."
#endif

namespace judge {
namespace {

constexpr double kCompileTimeoutS = 110;  // a compile that never ends fails its lab within 2 min
constexpr double kProbeTimeoutS = 20;

std::vector<std::string> archs() {
  std::vector<std::string> out;
  std::stringstream ss(BANKLAB_CUDA_ARCHS);
  std::string a;
  while (std::getline(ss, a, ';'))
    if (!a.empty()) out.push_back(a.substr(0, a.find_first_of("-")));  // "90-real" -> "90"
  if (out.empty()) out.push_back("90");
  return out;
}

std::string src_dir() { return BANKLAB_SOURCE_DIR; }


std::vector<std::string> common_flags() {
  return {"-std=c++17", "-w", "-I" + src_dir() + "/common/include", "-I" + src_dir() + "/grader/include"};
}

// gpulaunch: the probe's launch capture (grader/include/grader/probe_launch.hpp) wraps the CUDA
// runtime's launch entry points; the probe's link needs one --wrap per symbol.
std::vector<std::string> probe_link_flags() {
  std::vector<std::string> out;
  for (const char* sym : {"__cudaRegisterFunction", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
                          "__cudaGetKernel", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz", "cudaLaunchKernel",
                          "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
                          "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz"}) {
    out.push_back("-Xlinker");
    out.push_back(std::string("--wrap=") + sym);
  }
  return out;
}

void remove_tree_files(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      const std::string p = dir + "/" + n;
      struct stat st {};
      if (lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        remove_tree_files(p);
        rmdir(p.c_str());
      } else {
        unlink(p.c_str());
      }
    }
    closedir(d);
  }
}

// Processes re-parented to the judge (it is a child subreaper) after a probe ran: a probe's
// daemon. They are killed, a few rounds, so a double fork cannot outrun it.
void kill_leftovers() {
  const pid_t me = getpid();
  for (int round = 0; round < 5; ++round) {
    bool any = false;
    if (DIR* d = opendir("/proc")) {
      while (dirent* e = readdir(d)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
        if (pid <= 0) continue;
        std::ifstream st(std::string("/proc/") + e->d_name + "/stat");
        std::string line;
        std::getline(st, line);
        const std::size_t rp = line.rfind(')');
        if (rp == std::string::npos) continue;
        std::istringstream is(line.substr(rp + 2));
        char state = 0;
        int ppid = 0;
        is >> state >> ppid;
        if (ppid == me) {
          kill(pid, SIGKILL);
          any = true;
        }
      }
      closedir(d);
    }
    int status = 0;
    while (waitpid(-1, &status, WNOHANG) > 0) {
    }
    if (!any) return;
    usleep(20000);
  }
}

std::string stamp_of(const std::string& lab, const std::string& source_text) {
  std::string all = source_text;
  for (const char* f : {"/grader/include/grader/probe.hpp", "/grader/include/grader/probe_launch.hpp",
                        "/grader/include/grader/launch_calls.hpp", "/common/include/banklab/hardware.hpp",
                        "/common/include/banklab/cuda_check.cuh"})
    all += read_file(src_dir() + f, 1 << 20);
  all += read_file(src_dir() + "/grader/lab" + lab + "_probe.cu", 1 << 20);
  all += BANKLAB_NVCC;
  all += BANKLAB_CUDA_ARCHS;
  return sha256_hex(all);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

BuildResult build_lab(const std::string& lab, const std::string& source, const std::string& work) {
  const auto t0 = std::chrono::steady_clock::now();
  BuildResult r;
  auto done = [&](bool ok, std::string msg) {
    r.ok = ok;
    r.message = std::move(msg);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  const std::string probe_src = src_dir() + "/grader/lab" + lab + "_probe.cu";
  if (access(probe_src.c_str(), R_OK) != 0) return done(false, "there is no lab " + lab + " (no " + probe_src + ")");

  std::ifstream in(source, std::ios::binary);
  if (!in) return done(false, "cannot read " + source);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  make_dirs(work);
  const std::string stamp = stamp_of(lab, text);
  const std::string answers = work + "/answers.txt", fatbin = work + "/kernel.fatbin";
  if (read_file(work + "/stamp", 256) == stamp && access(answers.c_str(), R_OK) == 0 &&
      read_file(work + "/kernel.fatbin.sha256", 128) == sha256_hex(read_file(fatbin, 64u << 20))) {
    grader::Answers check;
    if (!check.load(answers, lab)) return done(true, "");  // nothing changed since the last build
  }

  // Start clean: a failed build must leave no answers and no device code behind.
  remove_tree_files(work);
  write_file(work + "/source.txt", source);
  const std::string srcdir = work + "/src";
  mkdir(srcdir.c_str(), 0755);
  const std::string copy = srcdir + "/kernel.cu";
  if (!write_file(copy, text)) return done(false, "cannot write " + copy);

  const std::vector<std::string> arch = archs();
  // Macros that the student's file leaves defined, found by preprocessing it and a baseline of
  // the headers it may use: the probe #undefs every one of them after the student's file, so no
  // macro of the student's (say `#define lane 0`) can rewrite the probe's own code.
  write_file(srcdir + "/baseline.cu",
             "#include <cuda_runtime.h>\n#include <cstdint>\n#include \"banklab/hardware.hpp\"\n");
  auto macro_dump = [&](const std::string& in, const std::string& out) {
    std::vector<std::string> cmd = {BANKLAB_NVCC};
    for (const auto& f : common_flags()) cmd.push_back(f);
    cmd.insert(cmd.end(), {"-E", "-Xcompiler", "-dM", "-x", "cu", in, "-o", out});
    return cmd;
  };
  std::vector<std::string> fatbin_cmd = {BANKLAB_NVCC};
  for (const auto& f : common_flags()) fatbin_cmd.push_back(f);
  fatbin_cmd.insert(fatbin_cmd.end(), {"-fatbin", "-lineinfo"});
  for (const auto& a : arch) {
    fatbin_cmd.push_back("-gencode");
    fatbin_cmd.push_back("arch=compute_" + a + ",code=[sm_" + a + ",compute_" + a + "]");
  }
  fatbin_cmd.insert(fatbin_cmd.end(), {copy, "-o", fatbin});

  ProcessOptions fo, mo, bo;
  fo.output_file = work + "/fatbin_build.log";
  mo.output_file = work + "/macros.log";
  bo.output_file = work + "/baseline.log";
  fo.timeout_s = mo.timeout_s = bo.timeout_s = kCompileTimeoutS;
  fo.max_output_bytes = 256 << 10;
  std::vector<ProcessResult> first = run_processes(
      {macro_dump(copy, work + "/macros.txt"), macro_dump(srcdir + "/baseline.cu", work + "/baseline.txt")}, {mo, bo});
  kill_leftovers();
  // A failed build leaves its reason in build.log and neither answers nor device code.
  auto fail = [&](const std::string& msg) {
    write_file(work + "/build.log", msg);
    unlink(answers.c_str());
    unlink(fatbin.c_str());
    return done(false, msg);
  };
  auto compile_error = [&](const ProcessResult& pr, const std::string& log_file) {
    const std::string log = replace_all(read_file(log_file, 16 << 10), copy, source);
    std::string msg = "your file does not compile (nvcc: " + pr.describe() + ").\n" + log;
    if (pr.timed_out)
      msg = "compiling your file took longer than " + std::to_string(static_cast<int>(kCompileTimeoutS)) +
            " s and was stopped: look for templates or constexpr evaluation that never end.";
    return fail(msg);
  };
  if (!first[0].ok()) return compile_error(first[0], mo.output_file);
  if (!first[1].ok()) return done(false, "the judge could not preprocess its own baseline: " + read_file(bo.output_file, 4096));
  {
    std::set<std::string> base;
    std::istringstream b(read_file(work + "/baseline.txt", 8 << 20));
    for (std::string line; std::getline(b, line);)
      if (line.rfind("#define ", 0) == 0) base.insert(line.substr(8, line.find_first_of(" (", 8) - 8));
    std::istringstream m(read_file(work + "/macros.txt", 8 << 20));
    std::string undefs = "// Generated by banklab-judge: every macro the student's file leaves defined.\n";
    for (std::string line; std::getline(m, line);) {
      if (line.rfind("#define ", 0) != 0) continue;
      const std::string name = line.substr(8, line.find_first_of(" (", 8) - 8);
      if (!base.count(name)) undefs += "#undef " + name + "\n";
    }
    write_file(srcdir + "/undef_student_macros.hpp", undefs);
  }
  write_file(srcdir + "/probe_main.cu", "#include \"kernel.cu\"\n#include \"undef_student_macros.hpp\"\n"
                                        "#include \"grader/probe.hpp\"\n#include \"" + probe_src + "\"\n");
  std::vector<std::string> probe_cmd = {BANKLAB_NVCC};
  for (const auto& f : common_flags()) probe_cmd.push_back(f);
  probe_cmd.insert(probe_cmd.end(), {"-I" + srcdir, "-O1", "-gencode",
                                     "arch=compute_" + arch.front() + ",code=compute_" + arch.front(),
                                     srcdir + "/probe_main.cu", "-o", work + "/probe"});
  for (const auto& f : probe_link_flags()) probe_cmd.push_back(f);  // gpulaunch: launch capture
  ProcessOptions po;
  po.output_file = work + "/probe_build.log";
  po.timeout_s = kCompileTimeoutS;
  po.max_output_bytes = 256 << 10;
  // The probe and the device code compile side by side.
  const std::vector<ProcessResult> res = run_processes({probe_cmd, fatbin_cmd}, {po, fo});
  kill_leftovers();
  if (!res[0].ok()) return compile_error(res[0], po.output_file);
  if (!res[1].ok()) return compile_error(res[1], fo.output_file);

  // The probe: the student's host code runs here, in a process of its own, and nowhere else.
  // Run as root (batch grading), it runs as nobody and can write only its own folder. Either
  // way the judge's files are hashed before and checked after: a probe that changed the device
  // code or the judge itself is caught.
  // As root the probe runs as nobody from a fresh folder under the system's temporary folder
  // (the work folder may lie where nobody cannot reach, e.g. under /root), with its own copy of
  // the probe program; otherwise from work/run.
  const bool as_root = getuid() == 0;
  std::string rundir = work + "/run", probe_exe = work + "/probe";
  std::string tmpdir;
  if (as_root) {
    char tmpl[] = "/tmp/banklab-probe-XXXXXX";
    if (mkdtemp(tmpl)) {
      tmpdir = tmpl;
      rundir = tmpdir;
      probe_exe = tmpdir + "/probe";
      write_file(probe_exe, read_file(work + "/probe", 256u << 20));
      chmod(probe_exe.c_str(), 0755);
      chmod(tmpdir.c_str(), 0755);
    }
  }
  make_dirs(rundir);
  const std::string fatbin_hash = sha256_hex(read_file(fatbin, 64u << 20));
  const std::string judge_path = self_path();
  const std::string judge_hash = sha256_hex(read_file(judge_path, 256u << 20));
  ProcessOptions pr;
  pr.cwd = rundir;
  pr.output_file = work + "/probe.log";
  pr.max_output_bytes = 1 << 20;
  pr.timeout_s = kProbeTimeoutS;
  pr.clean_env = true;
  pr.as_nobody = !tmpdir.empty();
  pr.env["CUDA_VISIBLE_DEVICES"] = "";  // the probe has no business with a GPU
  const std::string probe_answers = rundir + "/answers.txt";
  const ProcessResult p = run_process({probe_exe, probe_answers}, pr);
  kill_leftovers();
  if (sha256_hex(read_file(fatbin, 64u << 20)) != fatbin_hash || sha256_hex(read_file(judge_path, 256u << 20)) != judge_hash)
    return fail("your file's probe changed the grader's files (its compiled kernels or banklab-judge itself) while it "
                "ran: not judged. Rebuild the project (cmake --build) before grading again.");
  // The answers are copied out of the probe's folder into the judge's.
  if (access(probe_answers.c_str(), R_OK) == 0) write_file(answers, read_file(probe_answers, 16u << 20));
  if (!tmpdir.empty()) {
    remove_tree_files(tmpdir);
    rmdir(tmpdir.c_str());
  }
  grader::Answers check;
  if (auto err = check.load(answers, lab)) {
    std::string msg = "your file's answers could not be read: " + *err + " (probe: " + p.describe() + ").";
    const std::string out = read_file(pr.output_file, 2000);
    if (!out.empty()) msg += "\nIt printed:\n" + out;
    return fail(msg);
  }
  if (!p.ok())
    return fail("your file's probe wrote its answers but then ended badly (" + p.describe() +
                "): something in your file runs at exit. Remove it.");
  write_file(work + "/kernel.fatbin.sha256", fatbin_hash);
  write_file(work + "/stamp", stamp);
  return done(true, "");
}

}  // namespace judge

namespace grader {

std::optional<std::string> built_fatbin() {
  const std::string path = context().fatbin();
  std::string image = judge::read_file(path, 64u << 20);
  if (image.empty() || judge::read_file(path + ".sha256", 128) != judge::sha256_hex(image)) return std::nullopt;
  return image;
}

}  // namespace grader
