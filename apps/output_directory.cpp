#include "output_directory.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "run_manifest.h"

namespace ictus::cli {

namespace fs = std::filesystem;

namespace {

std::runtime_error io_error(const std::string& what, const fs::path& path, int error) {
  return std::runtime_error(
      fmt::format("cannot {} '{}': {} (--out)", what, path.string(), std::strerror(error)));
}

// The pid written into the lock file by the run that holds it.
std::string lock_holder(int fd) {
  std::array<char, 32> text{};
  const ssize_t n = pread(fd, text.data(), text.size() - 1, 0);
  std::string pid = n > 0 ? std::string(text.data(), static_cast<std::size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? std::string("?") : pid;
}

}  // namespace

bool OutputDirectory::is_run_file(const std::string& name) {
  for (const char* known :
       {"run.json", "results.csv", "events.csv", "results.incomplete.csv", "results.csv.partial",
        "events.csv.partial", "run.json.partial", "poses.csv", "poses.incomplete.csv",
        "poses.csv.partial", "report.html", "report.html.partial"})
    if (name == known) return true;
  return false;
}

fs::path OutputDirectory::sibling(const std::string& suffix) const {
  return target_.parent_path() / (target_.filename().string() + suffix);
}

fs::path OutputDirectory::incomplete() const {
  return sibling(".incomplete");
}

OutputDirectory::OutputDirectory(const fs::path& target) {
  // a symbolic link is followed: the set replaces the directory it names
  std::error_code ec;
  target_ = fs::weakly_canonical(fs::absolute(target), ec);
  if (ec) target_ = fs::absolute(target).lexically_normal();
  if (!target_.has_filename()) target_ = target_.parent_path();
  if (target_ == target_.root_path())
    throw OutputRefused(
        fmt::format("--out '{}': a run cannot replace the root directory", target.string()));
  fs::create_directories(target_.parent_path(), ec);
  if (ec) throw io_error("create", target_.parent_path(), ec.value());

  // the lock: flock on DIR.lock, released by the kernel if the process dies
  lock_path_ = sibling(".lock");
  for (;;) {
    lock_fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) throw io_error("create", lock_path_, errno);
    if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = lock_holder(lock_fd_);
      ::close(lock_fd_);
      lock_fd_ = -1;
      if (error == EWOULDBLOCK)
        throw OutputRefused(fmt::format(
            "another ictus run (pid {}) is writing '{}' (lock {}); wait for it, or give another "
            "--out",
            holder, target_.string(), lock_path_.string()));
      throw io_error("lock", lock_path_, error);
    }
    // the holder before us may have removed the file after we opened it:
    // then the lock is on a file nobody else will see; take it again
    struct stat held {
    }, named{};
    if (fstat(lock_fd_, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev)
      break;
    ::close(lock_fd_);
  }
  const std::string pid = fmt::format("{}\n", getpid());
  if (ftruncate(lock_fd_, 0) != 0 ||
      pwrite(lock_fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // a lock without its pid still locks; the message of a second run says "?"
  }
  try {
    check_and_stage();
  } catch (...) {
    release_lock();  // a refused run leaves nothing behind
    throw;
  }
}

void OutputDirectory::check_and_stage() {
  std::error_code ec;

  // DIR must be a run's directory (or absent, or empty): a run replaces it whole
  if (fs::exists(target_, ec)) {
    if (!fs::is_directory(target_, ec))
      throw OutputRefused(fmt::format(
          "--out '{}' is a file, not a directory; give a directory for the run's results",
          target_.string()));
    // files the set's run.json lists may be derived ones (a spectrum);
    // anything else not named like a run's file is the user's
    std::vector<std::string> foreign;
    bool empty = true;
    for (const fs::directory_entry& e : fs::directory_iterator(target_, ec)) {
      empty = false;
      const std::string name = e.path().filename().string();
      if (!is_run_file(name) || !e.is_regular_file()) foreign.push_back(name);
    }
    if (ec) throw io_error("read", target_, ec.value());
    if (!foreign.empty()) {
      ManifestListing listing;
      try {
        listing = read_manifest(target_);
      } catch (const std::runtime_error&) {
        // no readable manifest: nothing is listed
      }
      for (const std::string& name : foreign) {
        const bool listed = fs::is_regular_file(target_ / name) &&
                            std::any_of(listing.files.begin(), listing.files.end(),
                                        [&](const ManifestFile& f) { return f.name == name; });
        if (!listed)
          throw OutputRefused(fmt::format(
              "--out '{}' holds '{}', which is not a file of an ictus run; a run replaces its "
              "output directory as a whole: give a new or empty directory, or one that only "
              "holds an earlier run's results",
              target_.string(), name));
      }
    }
    if (!empty) refuse_unless_one_set();
  }

  // under the lock, staging and set-aside directories beside DIR belong to
  // runs that died (SIGKILL, power loss)
  const std::string stem = target_.filename().string();
  for (const fs::directory_entry& e : fs::directory_iterator(target_.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(stem + ".partial-", 0) == 0) fs::remove_all(e.path(), ec);
    // a run that died between its two renames (no atomic exchange): the
    // previous set goes back in place
    if (name.rfind(stem + ".previous-", 0) == 0) {
      if (fs::exists(target_))
        fs::remove_all(e.path(), ec);
      else
        fs::rename(e.path(), target_, ec);
    }
  }

  staging_ = sibling(fmt::format(".partial-{}", getpid()));
  fs::create_directory(staging_, ec);
  if (ec) throw io_error("create", staging_, ec.value());
}

// A DIR a run may replace holds exactly the set its run.json lists: files of
// two runs side by side (a run of an older ictus, files copied in, a set
// edited by hand) are refused rather than silently replaced as one.
void OutputDirectory::refuse_unless_one_set() const {
  const std::string advice =
      "a run replaces only a directory that holds one earlier run's set; move the files away "
      "or give another --out";
  if (!fs::exists(target_ / "run.json"))
    throw OutputRefused(fmt::format(
        "--out '{}' holds result files but no run.json that says which run wrote them; {}",
        target_.string(), advice));
  ManifestListing listing;
  try {
    listing = read_manifest(target_);
  } catch (const std::runtime_error& e) {
    throw OutputRefused(fmt::format("--out '{}': {}; {}", target_.string(), e.what(), advice));
  }
  const std::vector<std::string> differences =
      manifest_mismatches(listing, files_beside_manifest(target_));
  if (differences.empty()) return;
  std::string list;
  for (const std::string& d : differences) list += (list.empty() ? "" : "; ") + d;
  throw OutputRefused(fmt::format(
      "--out '{}' does not hold the set its run.json lists ({}): its files may come from "
      "different runs; {}",
      target_.string(), list, advice));
}

OutputDirectory::~OutputDirectory() {
  std::error_code ec;
  if (!done_) fs::remove_all(staging_, ec);
  release_lock();
}

void OutputDirectory::release_lock() {
  if (lock_fd_ < 0) return;
  // removed while still held, so that no run locks a file about to vanish
  ::unlink(lock_path_.c_str());
  ::close(lock_fd_);
  lock_fd_ = -1;
}

void OutputDirectory::commit() {
  done_ = true;
  std::error_code ec;
  if (fs::exists(target_, ec)) {
    // one atomic exchange where the file system offers it: DIR always holds
    // a whole set, the previous one or the new one
    if (renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0) {
      const fs::path previous = sibling(fmt::format(".previous-{}", getpid()));
      fs::rename(target_, previous);
      fs::rename(staging_, target_);
      fs::remove_all(previous, ec);
    } else {
      fs::remove_all(staging_, ec);  // now the previous set
    }
  } else {
    fs::rename(staging_, target_);
  }
  fs::remove_all(incomplete(), ec);
}

void OutputDirectory::abandon() {
  done_ = true;
  std::error_code ec;
  fs::remove_all(incomplete(), ec);
  fs::rename(staging_, incomplete());
}

void OutputDirectory::discard() {
  done_ = true;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

}  // namespace ictus::cli
