#!/usr/bin/env python3
"""The GPU path's acceptance run (issue 13); bench/gpu-acceptance.sh starts it. Standard
library only: it finds a python3 with torch for the steps that need one.

It builds the engine-only preset against the LibTorch of that python's torch (with GoogleTest
built from source for the same C++ ABI, and header packages from carried .deb files unpacked
into a private prefix), then measures the GPU path step by step, writing OUT/gpu-acceptance.json
after every step and every command's output to OUT/gpu-acceptance.log. Without a CUDA device it
stops at the first step that needs one, saying why. Exit status: 0 when every step and every
acceptance criterion passed, 1 otherwise, 2 on bad arguments.
"""
import argparse
import datetime
import io
import itertools
import json
import math
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "engine-only"
WORK = ROOT / "build" / "gpu-acceptance"
PREFIX = WORK / "prefix"
GTEST_BUILD = WORK / "googletest-build"
GTEST_PREFIX = WORK / "googletest"
DATA = WORK / "data" / "corpus.txt"
LAST_RUN = WORK / "last-run.json"  # the latest run's report, which a --steps run completes
CHECKPOINT_DIR = WORK / "checkpoint"

# GPT-2 124M: 12 layers, 12 heads, 768 wide, block 1024; 8 x 1024 tokens per micro-batch.
GPT2 = {"n_layer": 12, "n_head": 12, "n_embd": 768, "block_size": 1024}
BATCH = 8
PADDED_VOCAB = 50304
BYTE_VOCAB = 256
RELEASE_THRESHOLD_MIB = 300.0

THRESHOLDS = {
    "mfu": 0.40, "mfu_goal": 0.50,
    "vs_eager": 0.90,
    "swapped_over_resident": 0.80, "swapped_goal": 0.90,
    "release_s": 1.0,
    "loss_fall": 0.9,      # last loss below 0.9 x the first
    "fp16_skipped": 0.10,  # at most this share of fp16 steps skipped
}

CPP_TARGETS = ["swarmtrain-cli", "swarmtrain_engine_tests", "swarmtrain_gpu_release"]


class StepFailed(Exception):
    def __init__(self, reason, figures=None):
        super().__init__(reason)
        self.reason = reason
        self.figures = figures or {}


class Acceptance:
    """One run: the steps done so far, their figures, the log, the JSON file."""

    def __init__(self, out_dir, deadline_s, jobs, debs, only):
        self.out_dir = out_dir
        self.json_path = out_dir / "gpu-acceptance.json"
        self.log = open(out_dir / "gpu-acceptance.log", "w", encoding="utf-8", errors="replace")
        self.started = time.monotonic()
        self.deadline_s = deadline_s
        self.jobs = jobs
        self.debs = debs
        self.only = only
        self.steps = []
        self.stop_reason = None
        self.last_returncode = None
        self.step_budget = 0.0
        self.ctx = {}
        self.earlier = {}
        if only and LAST_RUN.exists():
            try:
                last = json.loads(LAST_RUN.read_text())
                commit = self.git_commit()
                if commit and not commit.endswith("-dirty") and last.get("commit") == commit:  # this code's only
                    self.earlier = {s["name"]: dict(s, earlier_run=last["started"]) for s in last["steps"]
                                    if s["status"] in ("pass", "fail")}
            except (ValueError, KeyError):
                pass
        self.report = {
            "schema": "swarmtrain-gpu-acceptance-1",
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": self.git_commit(),
            "deadline_s": deadline_s,
            "thresholds": THRESHOLDS,
            "steps": self.steps,
        }

    # -- running commands -------------------------------------------------------------------

    def remaining(self):
        return self.deadline_s - (time.monotonic() - self.started)

    def logline(self, text):
        self.log.write(text + "\n")
        self.log.flush()

    def run(self, cmd, timeout, env=None, cwd=ROOT, check=True, what=None):
        """Runs cmd (a list), logging its output; returns (stdout, stderr). Raises StepFailed
        on a non-zero exit (when check) or when it outlives `timeout` seconds."""
        timeout = max(1.0, min(timeout, self.remaining() - 5))
        full_env = dict(os.environ, **(env or {}))
        shown = " ".join(str(c) for c in cmd)
        self.logline("\n$ %s   (timeout %.0f s)" % (shown, timeout))
        started = time.monotonic()
        proc = subprocess.Popen([str(c) for c in cmd], cwd=str(cwd), env=full_env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            self.log_output(out, err)
            raise StepFailed("%s did not finish within %.0f s" % (what or Path(str(cmd[0])).name, timeout),
                             {"tail": tail(out + err)})
        self.log_output(out, err)
        self.logline("[exit %d after %.1f s]" % (proc.returncode, time.monotonic() - started))
        self.last_returncode = proc.returncode
        if check and proc.returncode != 0:
            raise StepFailed("%s exited with %d: %s" % (what or Path(str(cmd[0])).name, proc.returncode,
                                                        first_error(out, err)), {"tail": tail(out + err)})
        return out, err

    def log_output(self, out, err):
        if out:
            self.logline(out.rstrip("\n"))
        if err:
            self.logline("[stderr]\n" + err.rstrip("\n"))

    # -- steps ------------------------------------------------------------------------------

    def step(self, name, function, budget_s=300, optional_filter=True):
        entry = {"name": name, "status": "not_run", "seconds": 0.0, "reason": "", "figures": {}, "criteria": []}
        self.steps.append(entry)
        if self.stop_reason:
            entry["reason"] = self.stop_reason
            return self.finish(entry)
        if optional_filter and self.only and name not in self.only:
            if name in self.earlier:  # measured by the run before, on this machine
                entry.update(self.earlier[name])
                # What later steps compare against (the engine's tokens/s, PyTorch eager's).
                figures = entry["figures"]
                if name == "bench" and "report" in figures:
                    self.ctx["bench"] = figures["report"]
                elif name == "python_eager" and "python" in figures:
                    self.ctx["python_eager"] = figures["python"]
                elif name == "train_resident_bf16" and "tokens_per_s" in figures:
                    self.ctx["train_resident"] = figures
            else:
                entry["status"] = "skipped"
                entry["reason"] = "not asked for (--steps)"
            return self.finish(entry)
        if self.remaining() < 20:
            entry["reason"] = ("out of time: the %.0f s deadline is near; run again with --steps %s on the warm "
                               "machine (the build is kept)" % (self.deadline_s, name))
            return self.finish(entry)
        print("== %s" % name, flush=True)
        self.logline("\n==================== %s ====================" % name)
        started = time.monotonic()
        self.step_budget = min(budget_s, self.remaining() - 5)
        try:
            figures, criteria = function(self)
            entry["figures"] = figures or {}
            entry["criteria"] = criteria or []
            failed = [c["criterion"] for c in entry["criteria"] if not c["pass"]]
            entry["status"] = "fail" if failed else "pass"
            if failed:
                entry["reason"] = "below the acceptance threshold: " + "; ".join(failed)
        except StepFailed as e:
            entry["status"] = "fail"
            entry["reason"] = e.reason
            entry["figures"] = e.figures
            entry["criteria"] = getattr(e, "criteria", [])
        except Exception as e:  # a bug in this script must still leave the JSON behind
            entry["status"] = "fail"
            entry["reason"] = "gpu_acceptance.py: %s: %s" % (type(e).__name__, e)
        entry["seconds"] = round(time.monotonic() - started, 1)
        print("   %s (%.0f s)%s" % (entry["status"], entry["seconds"],
                                     ": " + entry["reason"] if entry["reason"] else ""), flush=True)
        return self.finish(entry)

    def finish(self, entry):
        self.write_json()
        return entry["status"] == "pass"

    def stop(self, reason):
        self.stop_reason = reason

    def write_json(self):
        self.report["elapsed_s"] = round(time.monotonic() - self.started, 1)
        criteria = [dict(c, step=s["name"]) for s in self.steps for c in s["criteria"]]
        self.report["acceptance"] = criteria
        failed = [s["name"] for s in self.steps if s["status"] == "fail"]
        not_run = [s["name"] for s in self.steps if s["status"] == "not_run"]
        # Steps left out with --steps do not fail a run; steps that could not run do.
        self.report["result"] = "pass" if not failed and not not_run and criteria else "fail"
        self.report["failed_steps"] = failed
        self.report["not_run_steps"] = not_run
        if self.stop_reason:
            self.report["stopped"] = self.stop_reason
        text = json.dumps(self.report, indent=1) + "\n"
        for path in (self.json_path, LAST_RUN):
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(text)
            tmp.replace(path)

    @staticmethod
    def git_commit():
        """HEAD, with "-dirty" when tracked files differ from it (a copied working tree, say)."""
        try:
            def git(*args):
                return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout
            head = git("rev-parse", "HEAD").strip()
            if not head:
                return None
            return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no").strip() else "")
        except (OSError, subprocess.SubprocessError):
            return None


# -- helpers ---------------------------------------------------------------------------------

def tail(text, lines=25):
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


def first_error(out, err):
    for line in (err + "\n" + out).splitlines():
        if re.search(r"\berror\b|Error|FAILED|fatal", line):
            return line.strip()[:400]
    last = (err or out).strip().splitlines()
    return last[-1][:400] if last else "no output"


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    raise StepFailed("no JSON line in the output: " + tail(text, 3))


def criterion(name, threshold, value, passed):
    return {"criterion": name, "threshold": threshold, "value": value, "pass": bool(passed)}


def multiarch():
    for cmd in (["gcc", "-print-multiarch"], ["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
            if out:
                return out
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.machine() + "-linux-gnu"


def find_torch_python():
    candidates = [os.environ.get("PYTHON"), sys.executable, shutil.which("python3"), "/usr/bin/python3"]
    for python in candidates:
        if not python or not os.path.exists(python):
            continue
        try:
            if subprocess.run([python, "-c", "import torch"], capture_output=True, timeout=120).returncode == 0:
                return python
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def stage_bytes(vocab):
    """swapStageBytes() of the GPT-2 124M model (SwappingExecutor.cpp): float32 weights and
    gradients of each stage, the head counting the tied embedding again."""
    c, t = GPT2["n_embd"], GPT2["block_size"]
    embedding = (vocab * c + t * c) * 8
    block = (12 * c * c + 2 * c) * 8
    head = (c + vocab * c) * 8
    return [embedding] + [block] * GPT2["n_layer"] + [head]


def budget(vocab, fraction):
    stages = stage_bytes(vocab)
    return max(int(sum(stages) * fraction), max(stages))


def generate_corpus(path, size=4 << 20, seed=1234):
    """Pseudo-English text: a Zipf-distributed vocabulary of made-up words in sentences and
    paragraphs; it has structure to learn (spelling, word frequencies, punctuation)."""
    if path.exists() and path.stat().st_size >= size:
        return
    rng = random.Random(seed)
    onsets = ["", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w", "th", "st", "tr",
              "ch", "sh", "gr", "pl", "br"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "ee"]
    codas = ["", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "m", "ck"]
    words = sorted({"".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                            for _ in range(rng.choice([1, 1, 2, 2, 3]))) for _ in range(6000)})
    rng.shuffle(words)
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(words))))
    parts, written = [], 0
    while written < size:
        sentences = []
        for _ in range(rng.randint(2, 7)):
            sentence = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(4, 16)))
            sentences.append(sentence[:1].upper() + sentence[1:] + rng.choice(".....?!"))
        paragraph = " ".join(sentences) + "\n\n"
        parts.append(paragraph)
        written += len(paragraph)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(parts))


def cli():
    return BUILD / "app" / "cli" / "swarmtrain-cli"


def train_args(extra):
    args = [cli(), "train", "--data", DATA, "--tokenizer", "byte", "--device", "cuda", "--quiet",
            "--batch-size", str(BATCH), "--eval-iters", "2", "--lr", "6e-4", "--min-lr", "6e-5", "--beta2", "0.95",
            "--warmup-iters", "10"]
    for key, value in GPT2.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    return args + [str(e) for e in extra]


def run_train(run, extra, what):
    """swarmtrain-cli train; returns its JSON report with the evaluations it printed
    ("step N/M: train loss X, val loss Y") as `evals`."""
    out, err = run.run(train_args(extra), run.step_budget, what=what)
    report = last_json(out)
    report["evals"] = [{"iter": int(m.group(1)), "train_loss": float(m.group(2)), "val_loss": float(m.group(3))}
                       for m in re.finditer(r"step (\d+)/\d+: train loss ([-\d.eE+naif]+), val loss ([-\d.eE+naif]+)",
                                            err)]
    return report


def train_figures(report):
    keys = ("iters", "ms_per_iter", "tokens_per_s", "mfu", "matmul_flops_per_s", "model_flops_per_s", "params",
            "device", "dtype", "swapped", "swap_plan", "swapped_bytes_per_iter", "skipped_steps", "train_loss",
            "val_loss", "peak_rss_mb", "evals")
    return {k: report[k] for k in keys if k in report}


# -- the steps --------------------------------------------------------------------------------

PROBE = r"""
import json, torch
info = {"torch": torch.__version__, "cuda": torch.version.cuda, "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "cmake_prefix_path": torch.utils.cmake_prefix_path, "cuda_available": torch.cuda.is_available(),
        "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0, "devices": []}
for i in range(info["device_count"]):
    p = torch.cuda.get_device_properties(i)
    info["devices"].append({"name": p.name, "capability": "%d.%d" % (p.major, p.minor),
                            "memory_bytes": p.total_memory, "multiprocessors": p.multi_processor_count})
try:
    import safetensors
    info["safetensors"] = safetensors.__version__
except ImportError:
    info["safetensors"] = None
import glob, os
here = os.path.dirname(torch.__file__)
info["library_dirs"] = [os.path.join(here, "lib")] + sorted({os.path.dirname(p) for p in glob.glob(
    os.path.join(os.path.dirname(here), "nvidia", "**", "lib*.so*"), recursive=True)})
print(json.dumps(info))
"""


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        text = (out.stdout or out.stderr).strip()
        lines = text.splitlines()
        return next((l for l in lines if "release" in l), lines[0]) if lines else None
    except (OSError, subprocess.SubprocessError):
        return None


def step_environment(run):
    python = find_torch_python()
    if not python:
        raise StepFailed("no python3 with torch: set PYTHON to one (pip's torch gives the LibTorch to build against)")
    run.ctx["python"] = python
    out, _ = run.run([python, "-c", PROBE], run.step_budget, what="the torch probe")
    torch_info = last_json(out)
    run.ctx["torch"] = torch_info
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    run.ctx["nvcc"] = nvcc
    figures = {
        "python": python, "torch": torch_info, "nvcc": nvcc and tool_version([nvcc, "--version"]),
        "cmake": tool_version(["cmake", "--version"]), "ninja": tool_version(["ninja", "--version"]),
        "cxx": tool_version(["c++", "--version"]), "ccache": shutil.which("ccache"),
        "nvidia_smi": tool_version(["nvidia-smi", "--query-gpu=name,memory.total,driver_version,compute_cap",
                                    "--format=csv,noheader"]) if shutil.which("nvidia-smi") else None,
        "cores": len(os.sched_getaffinity(0)), "jobs": run.jobs, "machine": platform.machine(),
        "kernel": platform.release(), "multiarch": multiarch(),
    }
    try:
        figures["os"] = dict(l.split("=", 1) for l in Path("/etc/os-release").read_text().splitlines() if "=" in l
                             ).get("PRETTY_NAME", "").strip('"')
    except OSError:
        pass
    run.ctx["multiarch"] = figures["multiarch"]
    return figures, []


def extract_deb(deb, dest):
    """dpkg-deb -x where dpkg exists; otherwise the ar archive's data.tar.* through tarfile."""
    if shutil.which("dpkg-deb"):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(dest)], check=True, capture_output=True, timeout=120)
        return
    data = deb.read_bytes()
    if not data.startswith(b"!<arch>\n"):
        raise StepFailed("%s is not a .deb (ar) archive" % deb.name)
    offset = 8
    while offset < len(data):
        name = data[offset:offset + 16].decode().strip().rstrip("/")
        size = int(data[offset + 48:offset + 58].decode().strip())
        body = data[offset + 60:offset + 60 + size]
        if name.startswith("data.tar"):
            with tarfile.open(fileobj=io.BytesIO(body)) as tar:
                tar.extractall(dest)
            return
        offset += 60 + size + (size % 2)
    raise StepFailed("%s has no data.tar member" % deb.name)


def step_prefix(run):
    debs = sorted(run.debs.glob("*.deb")) if run.debs.is_dir() else []
    if not debs:
        return {"debs_dir": str(run.debs), "packages": [],
                "note": "no .deb files there: the build relies on the machine's own packages "
                        "(bench/fetch-gpu-debs.sh fetches them)"}, []
    if PREFIX.exists():
        shutil.rmtree(PREFIX)
    PREFIX.mkdir(parents=True)
    for deb in debs:
        extract_deb(deb, PREFIX)
        run.logline("unpacked %s" % deb.name)
    # A -dev package's libfoo.so points at the runtime package's libfoo.so.N, which is not
    # carried: point it at the machine's own library of that soname, or drop it.
    repaired, dropped = [], []
    system_dirs = ["/usr/lib/" + run.ctx.get("multiarch", ""), "/lib/" + run.ctx.get("multiarch", ""),
                   "/usr/lib64", "/usr/lib", "/lib64"]
    for link in PREFIX.rglob("*.so*"):
        if link.is_symlink() and not link.exists():
            target = os.path.basename(os.readlink(link))
            found = next((Path(d) / target for d in system_dirs if (Path(d) / target).exists()), None)
            link.unlink()
            if found:
                link.symlink_to(found)
                repaired.append("%s -> %s" % (link.relative_to(PREFIX), found))
            else:
                dropped.append(str(link.relative_to(PREFIX)))
    return {"debs_dir": str(run.debs), "packages": [d.name for d in debs], "prefix": str(PREFIX),
            "library_links_to_system": repaired, "library_links_dropped": dropped}, []


def step_googletest(run):
    abi = 1 if run.ctx["torch"]["cxx11_abi"] else 0
    marker = GTEST_PREFIX / "swarmtrain-abi"
    if marker.exists() and marker.read_text().strip() == str(abi):
        run.ctx["gtest"] = "built"
        run.ctx["gtest_prefix"] = GTEST_PREFIX
        return {"source": "built before", "cxx11_abi": abi, "prefix": str(GTEST_PREFIX)}, []
    source = next((s for s in (PREFIX / "usr/src/googletest", Path("/usr/src/googletest"))
                   if (s / "CMakeLists.txt").exists()), None)
    if not source:
        system = sorted(Path("/usr/lib").glob("*/cmake/GTest/GTestConfig.cmake")) + sorted(
            Path("/usr/lib/cmake/GTest").glob("GTestConfig.cmake"))
        if system and abi == 1:  # distributions build it with the new ABI, as this torch
            run.ctx["gtest"] = "system"
            return {"source": "the machine's own GoogleTest", "config": str(system[0]), "cxx11_abi": abi}, []
        raise StepFailed("no GoogleTest source (carry the googletest .deb: bench/fetch-gpu-debs.sh)%s, so the "
                         "engine tests are not built" % ("" if not system else
                                                         " and the machine's own is not built for this torch's "
                                                         "old C++ ABI (_GLIBCXX_USE_CXX11_ABI=0)"))
    if GTEST_BUILD.exists():
        shutil.rmtree(GTEST_BUILD)
    # Built here with the compiler that builds the engine and the C++ ABI torch was built with
    # (_GLIBCXX_USE_CXX11_ABI=%d), so neither a prebuilt library's ABI nor its glibc can clash.
    run.run(["cmake", "-S", source, "-B", GTEST_BUILD, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             "-DBUILD_GMOCK=OFF", "-DINSTALL_GTEST=ON", "-DCMAKE_INSTALL_PREFIX=%s" % GTEST_PREFIX,
             "-DCMAKE_CXX_FLAGS=-D_GLIBCXX_USE_CXX11_ABI=%d" % abi, "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
             "-DCMAKE_POLICY_VERSION_MINIMUM=3.5"], run.step_budget, what="cmake (googletest)")
    run.run(["cmake", "--build", GTEST_BUILD, "--target", "install", "-j", str(run.jobs)], run.step_budget,
            what="the googletest build")
    marker.write_text(str(abi))
    run.ctx["gtest"] = "built"
    run.ctx["gtest_prefix"] = GTEST_PREFIX
    return {"source": str(source), "cxx11_abi": abi, "prefix": str(GTEST_PREFIX)}, []


def cache_value(name):
    cache = BUILD / "CMakeCache.txt"
    if not cache.exists():
        return None
    m = re.search(r"^%s:[A-Z]+=(.*)$" % re.escape(name), cache.read_text(errors="replace"), re.M)
    return m.group(1) if m else None


def build_env(run):
    env = {"CCACHE_BASEDIR": str(ROOT),
           "CCACHE_SLOPPINESS": "pch_defines,time_macros,include_file_mtime,include_file_ctime",
           "TORCH_CUDA_ARCH_LIST": "9.0"}
    nvcc = run.ctx.get("nvcc")
    if nvcc and not shutil.which("nvcc"):
        env["PATH"] = os.path.dirname(nvcc) + os.pathsep + os.environ.get("PATH", "")
    if nvcc:
        env["CUDACXX"] = nvcc
    return env


def step_configure(run):
    torch_info = run.ctx["torch"]
    prefix_path = [torch_info["cmake_prefix_path"]]
    if run.ctx.get("gtest_prefix"):
        prefix_path.append(str(run.ctx["gtest_prefix"]))
    # No acceptance step builds swarmtrain_engine_bench, so Google Benchmark is not looked for: a
    # half-installed one (its -dev package without the library) would stop the configuration.
    args = ["cmake", "--preset", "engine-only", "-DSWARMTRAIN_TESTS=%s" % ("ON" if run.ctx.get("gtest") else "OFF"),
            "-DCMAKE_CXX_COMPILER_LAUNCHER=%s" % ("ccache" if shutil.which("ccache") else ""),
            "-DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON"]
    if (PREFIX / "usr").is_dir():
        prefix_path.append(str(PREFIX / "usr"))
        # Header-only and header packages from the .debs (nlohmann-json, CLI11, OpenSSL's headers
        # with their per-architecture configuration.h) for every C++ source.
        includes = [d for d in (PREFIX / "usr/include", PREFIX / "usr/include" / run.ctx["multiarch"]) if d.is_dir()]
        if includes:
            args.append("-DCMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES=%s" % ";".join(map(str, includes)))
        if (PREFIX / "usr/include/openssl").is_dir():
            args.append("-DOPENSSL_ROOT_DIR=%s" % (PREFIX / "usr"))
    if torch_info.get("cuda"):
        args.append("-DCMAKE_CUDA_ARCHITECTURES=90")
        # pip's libtorch_cuda.so finds the CUDA libraries of pip's nvidia-* packages through its
        # RUNPATH; the linker checking an executable's indirect dependencies is told where they are.
        args.append("-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,%s" % ":".join(torch_info.get("library_dirs", [])))
        if run.ctx.get("nvcc"):
            args.append("-DCUDAToolkit_ROOT=%s" % Path(run.ctx["nvcc"]).parent.parent)
    args.append("-DCMAKE_PREFIX_PATH=%s" % ";".join(prefix_path))
    run.run(args, run.step_budget, env=build_env(run), what="cmake --preset engine-only")
    found = {k: cache_value(k) for k in ("Torch_DIR", "nlohmann_json_DIR", "GTest_DIR", "CLI11_DIR",
                                         "OPENSSL_INCLUDE_DIR", "OPENSSL_CRYPTO_LIBRARY", "benchmark_DIR",
                                         "C10_CUDA_LIBRARY", "CMAKE_CXX_COMPILER", "CMAKE_CUDA_COMPILER")}
    run.ctx["engine_has_cuda"] = bool(found.get("C10_CUDA_LIBRARY") and "NOTFOUND" not in found["C10_CUDA_LIBRARY"])
    return {"found": {k: v for k, v in found.items() if v}, "cmake_prefix_path": prefix_path,
            "torch_cxx11_abi": torch_info["cxx11_abi"], "engine_links_cuda": run.ctx["engine_has_cuda"]}, []


def step_build(run):
    targets = [t for t in CPP_TARGETS if run.ctx.get("gtest") or t != "swarmtrain_engine_tests"]
    run.run(["cmake", "--build", BUILD, "--target"] + targets + ["-j", str(run.jobs)], run.step_budget,
            env=build_env(run), what="the engine-only build")
    missing = [t for t, p in (("swarmtrain-cli", cli()), ("swarmtrain_gpu_release", BUILD / "bench" / "swarmtrain_gpu_release"))
               if not p.exists()]
    if missing:
        raise StepFailed("the build left no %s" % ", ".join(missing))
    return {"targets": targets, "jobs": run.jobs}, []


def step_cuda_device(run):
    torch_info = run.ctx["torch"]
    try:  # what the built program loads, whatever the CMake cache says
        libraries = subprocess.run(["ldd", str(cli())], capture_output=True, text=True, timeout=30).stdout
        run.ctx["engine_has_cuda"] = bool(re.search(r"lib(c10_cuda|torch_cuda)\.so", libraries))
    except (OSError, subprocess.SubprocessError):
        pass
    figures = {"torch_cuda": torch_info.get("cuda"), "cuda_available": torch_info["cuda_available"],
               "devices": torch_info["devices"], "engine_links_cuda": run.ctx.get("engine_has_cuda"),
               "nvidia_smi": shutil.which("nvidia-smi")}
    if not torch_info.get("cuda"):
        raise StepFailed("no CUDA device: torch.cuda.is_available() is False; this python's torch %s has no CUDA "
                         "(torch.version.cuda is None), so the engine was built against a CPU LibTorch"
                         % torch_info["torch"], figures)
    if not torch_info["cuda_available"]:
        raise StepFailed("no CUDA device: torch.cuda.is_available() is False", figures)
    if not run.ctx.get("engine_has_cuda"):
        raise StepFailed("swarmtrain-cli does not load libc10_cuda or libtorch_cuda: it was built against a LibTorch "
                         "without CUDA (Torch_DIR %s)" % cache_value("Torch_DIR"), figures)
    return figures, []


def step_gpus(run):
    out, _ = run.run([cli(), "gpus", "--json"], run.step_budget, what="swarmtrain-cli gpus --json")
    report = last_json(out)
    gpus = report.get("gpus", [])
    nvidia = [g for g in gpus if g.get("vendor", "").lower().startswith("nvidia")]
    figures = {"gpus": [{k: g.get(k) for k in ("name", "memory_total_bytes", "driver_version", "compute_capability",
                                               "usable", "unusable_reason")} for g in gpus],
               "warnings": report.get("warnings", [])}
    g = nvidia[0] if nvidia else {}
    lacking = [k for k, ok in (("name", g.get("name")), ("memory", (g.get("memory_total_bytes") or 0) > 0),
                                ("driver", g.get("driver_version")),
                                ("compute capability", re.match(r"^\d+\.\d+$", g.get("compute_capability", ""))),
                                ("usable", g.get("usable"))) if not ok]
    value = "%s, %.1f GiB, driver %s, compute capability %s" % (
        g.get("name"), (g.get("memory_total_bytes") or 0) / 2**30, g.get("driver_version"),
        g.get("compute_capability")) if g else "no NVIDIA GPU listed"
    return figures, [criterion("gpus --json lists the GPU with name, memory, driver and compute capability",
                               "all four present, GPU usable", value + ("; lacking " + ", ".join(lacking) if lacking else ""),
                               g and not lacking)]


def step_cuda_tests(run):
    if not run.ctx.get("gtest"):
        raise StepFailed("the engine tests were not built: the googletest step failed")
    out, err = run.run(["ctest", "--test-dir", BUILD, "-R", "Cuda", "-V", "--timeout", "300"], run.step_budget,
                       check=False, what="ctest -R Cuda")
    text = out + err
    results = {m.group(1): m.group(2) for m in
               re.finditer(r"Test\s+#\d+: (\S+) \.+\**\s*(Passed|Failed|\**Skipped|Not Run|\**Timeout|\**Exception)", text)}
    skipped = sorted(set(re.findall(r"\[  SKIPPED \] ([A-Za-z_]\w*\.\w+)", text)) | {n for n, r in results.items() if "Skipped" in r})
    failed = sorted(n for n, r in results.items() if r != "Passed" and "Skipped" not in r)
    required = ["SwappingExecutorTest.CudaSwappedMatchesCpuResident",
                "SwappingExecutorTest.CudaBfloat16SwappedTrainingLearns"]
    absent = [n for n in required if n not in results]
    figures = {"tests": results, "skipped": skipped, "failed": failed, "ctest_exit": run.last_returncode}
    value = "%d ran: %d passed, %d failed, %d skipped%s" % (
        len(results), sum(r == "Passed" for r in results.values()), len(failed), len(skipped),
        "; missing " + ", ".join(absent) if absent else "")
    ok = results and not failed and not skipped and not absent and run.last_returncode == 0
    return figures, [criterion("the engine's CUDA tests run on the GPU and pass", "all pass, none skipped", value, ok)]


def bench_step(run, args, what, model):
    """Runs swarmtrain-cli bench (bf16 on the GPU) and judges resident MFU and swapped/resident."""
    out, _ = run.run(args, run.step_budget, what=what)
    report = last_json(out)
    training = report["training"]
    resident, swapped = training["resident"], training["swapped"]
    ratio = training["swapped_over_resident"]
    figures = {"command": " ".join(str(a) for a in args[1:]), "report": report,
               "resident_mfu": resident["mfu"], "resident_tokens_per_s": resident["tokens_per_s"],
               "swapped_tokens_per_s": swapped["tokens_per_s"], "swapped_over_resident": ratio,
               "swap_plan": swapped.get("swap_plan"), "device_memory_budget": swapped.get("device_memory_budget")}
    return report, figures, [
        criterion("resident bf16 MFU, %s, 8 x 1024 tokens" % model,
                  ">= %.2f (goal %.2f), against a dense bf16 matmul on this GPU" % (THRESHOLDS["mfu"], THRESHOLDS["mfu_goal"]),
                  round(resident["mfu"], 4), resident["mfu"] >= THRESHOLDS["mfu"]),
        criterion("%s swapped through a quarter of the model / resident, tokens/s" % model,
                  ">= %.2f (goal %.2f)" % (THRESHOLDS["swapped_over_resident"], THRESHOLDS["swapped_goal"]),
                  round(ratio, 4), ratio >= THRESHOLDS["swapped_over_resident"]),
    ]


def gpt2_shape_flags():
    args = []
    for key, value in GPT2.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    return args


def step_bench(run):
    args = [cli(), "bench", "--json", "--device", "cuda", "--dtype", "bfloat16", "--vocab-size", str(PADDED_VOCAB),
            "--batch-size", str(BATCH), "--iters", "20"] + gpt2_shape_flags()
    report, figures, criteria = bench_step(run, args, "swarmtrain-cli bench --json", "GPT-2 124M (vocab 50304)")
    run.ctx["bench"] = report
    return figures, criteria


def step_bench_llama(run):
    """The Llama family (issue 42) at GPT-2 124M's shape: 12 layers, 12 heads over 4 key/value
    heads, width 768, SwiGLU 2048, vocabulary 32000, bf16."""
    args = [cli(), "bench", "--json", "--family", "llama", "--device", "cuda", "--dtype", "bfloat16",
            "--vocab-size", "32000", "--batch-size", str(BATCH), "--iters", "20"] + gpt2_shape_flags()
    _, figures, criteria = bench_step(run, args, "swarmtrain-cli bench --family llama --json",
                                      "Llama of GPT-2 124M's shape (GQA 12/4, vocab 32000)")
    return figures, criteria


def step_release(run):
    out, _ = run.run([BUILD / "bench" / "swarmtrain_gpu_release", "--steps-before", "5", "--threshold-mib",
                      str(RELEASE_THRESHOLD_MIB), "--dtype", "bfloat16", "--swap", "off"], run.step_budget,
                     what="swarmtrain_gpu_release")
    report = last_json(out)
    below = report.get("below_threshold_after_s")
    value = ("below %.0f MiB %.3f s after the release was asked (by %s)" % (RELEASE_THRESHOLD_MIB, below, report["measured_by"])
             if below is not None else "still %s MiB (%s) 3 s after the release was asked" % (
                 (report.get("after") or {}).get("process_mib") or (report.get("after") or {}).get("reserved_mib"),
                 report["measured_by"]))
    return report, [criterion("device memory after a release pause in the middle of training",
                              "< %.0f MiB within %.1f s" % (RELEASE_THRESHOLD_MIB, THRESHOLDS["release_s"]), value,
                              below is not None and below <= THRESHOLDS["release_s"])]


def python_reference(run, compile_model):
    args = [run.ctx["python"], ROOT / "bench" / "python_reference.py", "--data", DATA, "--tokenizer", "byte",
            "--vocab-size", str(PADDED_VOCAB), "--device", "cuda", "--dtype", "bfloat16", "--batch-size", str(BATCH),
            "--max-iters", "40", "--warmup-skip", "15" if compile_model else "10", "--lr", "6e-4", "--min-lr", "6e-5",
            "--beta2", "0.95", "--warmup-iters", "10", "--lr-decay-iters", "40"]
    for key, value in GPT2.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    if compile_model:
        args.append("--compile")
    out, _ = run.run(args, run.step_budget, env={"PYTHONUNBUFFERED": "1"},
                     what="python_reference.py%s" % (" --compile" if compile_model else ""))
    report = last_json(out)
    bench = run.ctx.get("bench")
    peak = bench["matmul_flops_per_s"].get("bfloat16") if bench else None
    if peak:
        report["mfu"] = report["model_flops_per_s"] / peak
    run.ctx["python_compile" if compile_model else "python_eager"] = report
    return report, bench


def step_python_eager(run):
    report, bench = python_reference(run, compile_model=False)
    if not bench:
        return {"python": report}, [criterion("engine tokens/s / PyTorch eager tokens/s", ">= %.2f" % THRESHOLDS["vs_eager"],
                                              "not measured: the bench step did not run", False)]
    engine = bench["training"]["resident"]["tokens_per_s"]
    ratio = engine / report["tokens_per_s"]
    return {"python": report, "engine_tokens_per_s": engine, "engine_over_eager": ratio}, [
        criterion("engine tokens/s / PyTorch eager tokens/s (same model, bf16, same GPU)",
                  ">= %.2f" % THRESHOLDS["vs_eager"], round(ratio, 4), ratio >= THRESHOLDS["vs_eager"])]


def step_python_compile(run):
    report, bench = python_reference(run, compile_model=True)
    figures = {"python": report}
    eager = run.ctx.get("python_eager")
    if eager:
        figures["compile_over_eager"] = report["tokens_per_s"] / eager["tokens_per_s"]
    if bench:
        figures["engine_over_compile"] = bench["training"]["resident"]["tokens_per_s"] / report["tokens_per_s"]
    value = ("engine / torch.compile %.3f" % figures["engine_over_compile"] if "engine_over_compile" in figures
             else "torch.compile %.0f tokens/s" % report["tokens_per_s"])
    return figures, [criterion("tokens/s reported against torch.compile", "measured", value, True)]


def step_train_resident(run):
    if CHECKPOINT_DIR.exists():
        shutil.rmtree(CHECKPOINT_DIR)
    report = run_train(run, ["--dtype", "bfloat16", "--swap", "off", "--max-iters", "50", "--eval-interval", "50",
                             "--out", CHECKPOINT_DIR], "swarmtrain-cli train (resident bf16)")
    run.ctx["train_resident"] = report
    figures = train_figures(report)
    figures["note"] = ("the train command sizes the vocabulary from the tokenizer (256 bytes); the vocab-50304 "
                       "figures are the bench step's")
    figures["checkpoint"] = str(CHECKPOINT_DIR / "checkpoint.safetensors")
    return figures, []


def step_checkpoint(run):
    path = CHECKPOINT_DIR / "checkpoint.safetensors"
    if not path.exists():
        raise StepFailed("no checkpoint: the train_resident_bf16 step wrote none")
    out, _ = run.run([run.ctx["python"], ROOT / "bench" / "checkpoint_vs_nanogpt.py", path, "--data", DATA],
                     run.step_budget, check=False, what="checkpoint_vs_nanogpt.py")
    report = last_json(out)
    value = ("%d model tensors match nanoGPT's names and shapes; forward loss %.3f vs the checkpoint's %.3f"
             % (report["model_tensors"], report.get("nanogpt_forward_loss", float("nan")),
                report.get("checkpoint_val_loss", float("nan"))) if report.get("ok")
             else "; ".join(report.get("problems") or [report.get("error", "failed")]))
    return report, [criterion("Python's safetensors opens the checkpoint; names and shapes are nanoGPT's",
                              "loads, matches, strict load and forward pass agree", value, report.get("ok"))]


def loss_falls(report):
    evals = report.get("evals") or []
    if len(evals) < 2:
        return None, None, False
    first, last = evals[0]["train_loss"], evals[-1]["train_loss"]
    return first, last, math.isfinite(last) and last < THRESHOLDS["loss_fall"] * first


def step_twice_budget(run):
    half = budget(BYTE_VOCAB, 0.5)
    report = run_train(run, ["--dtype", "bfloat16", "--swap", "on", "--device-memory-budget", str(half),
                             "--max-iters", "200", "--eval-interval", "50"], "swarmtrain-cli train (twice the budget)")
    figures = train_figures(report)
    figures["device_memory_budget"] = half
    figures["model_stage_bytes"] = sum(stage_bytes(BYTE_VOCAB))
    first, last, ok = loss_falls(report)
    figures.update({"first_loss": first, "last_loss": last})
    return figures, [criterion("a model twice the device-memory budget trains 200 steps and its loss falls",
                               "last train loss < %.1f x the first" % THRESHOLDS["loss_fall"],
                               "%s -> %s" % (first, last), ok and report.get("swapped"))]


def step_fp16(run):
    report = run_train(run, ["--dtype", "float16", "--swap", "off", "--max-iters", "100", "--eval-interval", "50"],
                       "swarmtrain-cli train (float16)")
    figures = train_figures(report)
    first, last, falls = loss_falls(report)
    skipped = report.get("skipped_steps", 0)
    figures.update({"first_loss": first, "last_loss": last})
    share = skipped / max(1, report.get("iters", 1))
    return figures, [criterion("float16 with the loss scaler trains; skipped steps counted",
                               "loss falls, skipped <= %.0f%% of steps" % (100 * THRESHOLDS["fp16_skipped"]),
                               "%d of %d steps skipped; loss %s -> %s" % (skipped, report.get("iters", 0), first, last),
                               falls and share <= THRESHOLDS["fp16_skipped"])]


def step_train_swapped(run):
    quarter = budget(BYTE_VOCAB, 0.25)
    report = run_train(run, ["--dtype", "bfloat16", "--swap", "on", "--device-memory-budget", str(quarter),
                             "--max-iters", "30", "--eval-interval", "30"], "swarmtrain-cli train (swapped, quarter)")
    figures = train_figures(report)
    figures["device_memory_budget"] = quarter
    resident = run.ctx.get("train_resident")
    if resident:
        figures["swapped_over_resident"] = report["tokens_per_s"] / resident["tokens_per_s"]
    return figures, []


# In order; each with its time budget in seconds. The setup steps come first and build
# nothing twice; cuda_device is the first that needs a GPU, and the run stops there without
# one. The measurements that decide acceptance come before the slower extras.
STEPS = [
    ("environment", step_environment, 120),
    ("prefix", step_prefix, 120),
    ("googletest", step_googletest, 240),
    ("configure", step_configure, 240),
    ("build", step_build, 86400),  # everything after needs it: only the deadline bounds it
    ("cuda_device", step_cuda_device, 60),
    ("gpus", step_gpus, 60),
    ("cuda_tests", step_cuda_tests, 300),
    ("bench", step_bench, 240),
    ("bench_llama", step_bench_llama, 240),
    ("release", step_release, 180),
    ("python_eager", step_python_eager, 240),
    ("train_resident_bf16", step_train_resident, 240),
    ("checkpoint", step_checkpoint, 180),
    ("twice_budget", step_twice_budget, 300),
    ("fp16", step_fp16, 240),
    ("train_swapped_quarter", step_train_swapped, 240),
    ("python_compile", step_python_compile, 420),
]
SETUP_STEPS = ("environment", "prefix", "googletest", "configure", "build", "cuda_device")


def print_summary(run):
    print("\n%-22s %-7s %6s  %s" % ("step", "status", "s", "reason / figures"))
    for s in run.steps:
        f = s["figures"]
        detail = s["reason"]
        if not detail and s["name"] == "bench":
            detail = "resident %.0f tokens/s MFU %.3f; swapped %.0f tokens/s (x%.2f)" % (
                f["resident_tokens_per_s"], f["resident_mfu"], f["swapped_tokens_per_s"], f["swapped_over_resident"])
        elif not detail and "tokens_per_s" in f:
            detail = "%.0f tokens/s, MFU %.3f, loss %s" % (f["tokens_per_s"], f.get("mfu", 0), f.get("train_loss"))
        if s.get("earlier_run"):
            detail = "(run of %s) %s" % (s["earlier_run"], detail)
        print("%-22s %-7s %6.0f  %s" % (s["name"], s["status"], s["seconds"], detail[:160]))
    print("\nacceptance:")
    for s in run.steps:
        for c in s["criteria"]:
            print("  [%s] %s: %s (threshold %s)" % ("PASS" if c["pass"] else "FAIL", c["criterion"], c["value"],
                                                   c["threshold"]))
    unmeasured = [s["name"] for s in run.steps if s["status"] == "not_run" and s["name"] not in SETUP_STEPS]
    if unmeasured:
        print("  not measured: %s" % ", ".join(unmeasured))
    if run.stop_reason:
        print("\n%s: %s" % (run.stop_reason, run.report.get("stopped_because", "")))
    late = [s["name"] for s in run.steps if s["reason"].startswith("out of time")]
    if late:
        print("\nout of time for %s; on the warm machine (the build is kept) this completes the report:\n"
              "  bench/gpu-acceptance.sh --steps %s" % (", ".join(late), ",".join(late)))
    print("\nresult: %s   (%s, %.0f s)" % (run.report["result"].upper(), run.json_path, run.report["elapsed_s"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--debs", default=os.environ.get("GPU_DEBS", str(ROOT / ".debs")),
                   help="folder of .deb files to unpack into the private prefix (default $GPU_DEBS or .debs)")
    p.add_argument("--out", default=os.environ.get("OUT") or str(WORK / "out"),
                   help="folder for gpu-acceptance.json and gpu-acceptance.log (default $OUT)")
    p.add_argument("--deadline", type=float, default=float(os.environ.get("GPU_ACCEPTANCE_DEADLINE_S", 560)),
                   help="seconds for the whole run; steps that would start later are not run (default 560)")
    p.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="build jobs (default: the cores)")
    p.add_argument("--steps", default="", help="comma-separated measurement steps to run (the build steps always "
                                               "run, and do nothing when done): " +
                                               ",".join(n for n, *_ in STEPS if n not in SETUP_STEPS))
    a = p.parse_args()
    only = {s for s in a.steps.split(",") if s}
    unknown = only - {n for n, *_ in STEPS}
    if unknown:
        p.error("unknown step(s): %s" % ", ".join(sorted(unknown)))

    out_dir = Path(a.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    WORK.mkdir(parents=True, exist_ok=True)
    run = Acceptance(out_dir, a.deadline, max(1, a.jobs), Path(a.debs).resolve() if a.debs else Path("/nonexistent"),
                     only)
    for name, function, budget_s in STEPS:
        ok = run.step(name, function, budget_s=budget_s, optional_filter=name not in SETUP_STEPS)
        if name == "environment" and ok:
            generate_corpus(DATA)
            run.report["environment"] = run.steps[-1]["figures"]
        if name in SETUP_STEPS and not ok and not run.stop_reason:
            if name == "googletest":
                continue  # the engine still builds; the CUDA tests step then fails on its own
            run.stop("the run stopped at the %s step" % name)
            run.report["stopped_because"] = run.steps[-1]["reason"]
    run.write_json()
    print_summary(run)
    run.log.close()
    return 0 if run.report["result"] == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
