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
#include <vector>

#include "grader/answers.hpp"
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
  for (const char* f : {"/grader/include/grader/probe.hpp", "/common/include/banklab/hardware.hpp",
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
  if (read_file(work + "/stamp", 256) == stamp && access(answers.c_str(), R_OK) == 0 && access(fatbin.c_str(), R_OK) == 0) {
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
  std::vector<std::string> probe_cmd = {BANKLAB_NVCC};
  for (const auto& f : common_flags()) probe_cmd.push_back(f);
  probe_cmd.insert(probe_cmd.end(), {"-I" + srcdir, "-O1", "-gencode",
                                     "arch=compute_" + arch.front() + ",code=compute_" + arch.front(),
                                     probe_src, "-o", work + "/probe"});
  std::vector<std::string> fatbin_cmd = {BANKLAB_NVCC};
  for (const auto& f : common_flags()) fatbin_cmd.push_back(f);
  fatbin_cmd.insert(fatbin_cmd.end(), {"-fatbin", "-lineinfo"});
  for (const auto& a : arch) {
    fatbin_cmd.push_back("-gencode");
    fatbin_cmd.push_back("arch=compute_" + a + ",code=[sm_" + a + ",compute_" + a + "]");
  }
  fatbin_cmd.insert(fatbin_cmd.end(), {copy, "-o", fatbin});

  ProcessOptions po, fo;
  po.output_file = work + "/probe_build.log";
  fo.output_file = work + "/fatbin_build.log";
  po.timeout_s = fo.timeout_s = kCompileTimeoutS;
  po.max_output_bytes = fo.max_output_bytes = 256 << 10;
  const std::vector<ProcessResult> res = run_processes({probe_cmd, fatbin_cmd}, {po, fo});
  kill_leftovers();
  for (int i = 0; i < 2; ++i) {
    if (res[static_cast<std::size_t>(i)].ok()) continue;
    const std::string log = replace_all(read_file(i == 0 ? po.output_file : fo.output_file, 16 << 10), copy, source);
    std::string msg = "your file does not compile (nvcc: " + res[static_cast<std::size_t>(i)].describe() + ").\n" + log;
    if (res[static_cast<std::size_t>(i)].timed_out)
      msg = "compiling your file took longer than " + std::to_string(static_cast<int>(kCompileTimeoutS)) +
            " s and was stopped: look for templates or constexpr evaluation that never end.";
    write_file(work + "/build.log", msg);
    unlink(fatbin.c_str());
    return done(false, msg);
  }

  // The probe: the student's host code runs here, in a process of its own, and nowhere else.
  const std::string rundir = work + "/run";
  mkdir(rundir.c_str(), 0755);
  ProcessOptions pr;
  pr.cwd = rundir;
  pr.output_file = work + "/probe.log";
  pr.max_output_bytes = 1 << 20;
  pr.timeout_s = kProbeTimeoutS;
  pr.clean_env = true;
  pr.env["CUDA_VISIBLE_DEVICES"] = "";  // the probe has no business with a GPU
  const ProcessResult p = run_process({work + "/probe", answers}, pr);
  kill_leftovers();
  grader::Answers check;
  if (auto err = check.load(answers, lab)) {
    std::string msg = "your file's answers could not be read: " + *err + " (probe: " + p.describe() + ").";
    const std::string out = read_file(pr.output_file, 2000);
    if (!out.empty()) msg += "\nIt printed:\n" + out;
    write_file(work + "/build.log", msg);
    unlink(answers.c_str());
    unlink(fatbin.c_str());
    return done(false, msg);
  }
  if (!p.ok()) {
    const std::string msg = "your file's probe wrote its answers but then ended badly (" + p.describe() +
                            "): something in your file runs at exit. Remove it.";
    write_file(work + "/build.log", msg);
    unlink(answers.c_str());
    unlink(fatbin.c_str());
    return done(false, msg);
  }
  write_file(work + "/stamp", stamp);
  return done(true, "");
}

}  // namespace judge
