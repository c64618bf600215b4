// Nothing of the caller's keys reaches a step (issue 45, item 4). The kernel's keyrings are not
// namespaced: a process keeps its parent's session keyring across fork, exec, setuid and every
// namespace bubblewrap makes, and a key readable by a uid is readable by any process of that uid.
// So a step, whatever it runs as, could read a Kerberos ticket or an AFS token of whoever started
// the judge (a pam_keyinit login, a systemd service) and keep keys of its own in its uid's user
// keyring for the next judge leased that uid. Three things close it, each where it belongs:
//   - every step first joins a new, empty anonymous session keyring (KEYCTL_JOIN_SESSION_KEYRING),
//     before any uid drop: it no longer possesses the caller's;
//   - every step runs under a syscall filter that makes the keyring calls (add_key, request_key,
//     keyctl) fail with EPERM, as container runtimes' default filters do (Docker's, Podman's):
//     built with libseccomp (seccomp_export_bpf) and handed to bubblewrap (--seccomp FD), loaded
//     directly in an unconfined step. Without it a step of the caller's own uid (a normal user's
//     judge) could still read the caller's keys that grant their user read;
//   - a root judge clears the user keyrings of its leased uid when it leases it and when it ends.
// /proc/keys and /proc/key-users are masked in the sandbox (bwrap_args), as Docker masks them.
#pragma once

#include <sys/types.h>

#include <string>

namespace judge {

/// In a forked child, before anything of the step: a new, empty session keyring of its own.
/// True when joined, or when no keyring can be reached from here at all (a kernel without keys,
/// or the keyring calls already filtered, as in a container with a default seccomp profile).
bool join_fresh_session_keyring();

/// The step's syscall filter (the keyring calls fail with EPERM), as the BPF program
/// seccomp_export_bpf writes; made once a process. Empty when it cannot be made: `why` says why
/// (a judge built without libseccomp: the judge refuses to confine, sandbox_bwrap.cpp).
const std::string& keyring_filter(std::string* why = nullptr);

/// Loads the filter into this process itself (an unconfined step, in its forked child: no new
/// privileges first, as the kernel requires). False when it could not.
bool load_keyring_filter();

/// Empties the user keyring and the user session keyring of `uid` (root only, from a forked
/// child that becomes `uid`: the kernel finds a user's keyrings by the caller's uid). True when
/// both are empty afterwards.
bool clear_user_keyrings(uid_t uid);

}  // namespace judge
