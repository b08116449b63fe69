#include "python/chart_pool.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/child_process.hpp"
#include "core/error.hpp"
#include "python/interpreter.hpp"

namespace kprof {
namespace {

// The worker: imports matplotlib and draws a throw-away chart (fonts, SVG and PNG writers loaded),
// says whether matplotlib imported, then draws one chart per JSON line on stdin and answers one
// JSON line each. Each chart kind's code is run once, in a namespace of its own, whose _save
// (plot.cpp's kSavePy) writes the PNG in a forked copy of the worker while the worker writes the
// SVG: measured on the H200's host, a roofline of three kernels took 0.62 s instead
// of 0.94-1.01 s (savefig of both formats: 0.70 s, of the SVG alone beside the PNG: 0.26-0.30 s).
// A PNG the fork could not write is written again here, which raises matplotlib's own error.
const char* kWorkerPy = R"PY(
import json, os, sys

def _forked_save(save_one):
    def _save(fig, svg_path, png_path):
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:  # the child: the PNG only, then out without Python's exit handlers or buffers
            code = 1
            try:
                save_one(fig, png_path, "png")
                code = 0
            finally:
                os._exit(code)
        ok = False
        try:
            save_one(fig, svg_path, "svg")
        finally:  # the child is waited for even when the SVG fails (no zombie left behind)
            ok = pid > 0 and os.waitpid(pid, 0)[1] == 0
        if not ok:
            save_one(fig, png_path, "png")
    return _save
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
except Exception as e:
    print(json.dumps({"ready": False, "error": "%s: %s" % (type(e).__name__, e)}), flush=True)
    sys.exit(0)
try:  # a throw-away chart loads the fonts and both writers now, not in the run's first chart
    import io
    _f, _a = matplotlib.pyplot.subplots(figsize=(2, 2))
    _a.loglog([1, 10], [1, 10], label="warm-up")
    _a.set_xlabel("FLOP/byte")
    _a.legend()
    for _fmt in ("svg", "png"):
        _f.savefig(io.BytesIO(), format=_fmt, dpi=130)
    matplotlib.pyplot.close(_f)
except Exception:
    pass
print(json.dumps({"ready": True}), flush=True)
_kinds = {}
for line in sys.stdin:
    job = json.loads(line)
    try:
        ns = _kinds.get(job["kind"])
        if ns is None:
            ns = {"__builtins__": __builtins__}
            exec(job["save"], ns)
            ns["_save"] = _forked_save(ns["_save_one"])
            exec(job["code"], ns)
            _kinds[job["kind"]] = ns
        ns["draw"](job["spec"], job["svg"], job["png"])
        print(json.dumps({"ok": True}), flush=True)
    except Exception as e:
        print(json.dumps({"ok": False, "error": "%s: %s" % (type(e).__name__, e)}), flush=True)
)PY";

constexpr size_t kMaxWorkers = 8;
constexpr double kStartTimeoutS = 120;  ///< a worker's start and matplotlib import
constexpr double kChartTimeoutS = 120;  ///< one chart

struct Job {
  ChartKind kind;
  std::string spec, svg, png;
  std::promise<std::string> done;
};

class Pool {
 public:
  ~Pool() { stop(); }

  /// Ends every worker once the charts asked for are answered (their threads joined). Idempotent.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  void start(size_t n) {
    std::lock_guard<std::mutex> lock(m_);
    n = std::min(n, kMaxWorkers);
    if (python_.empty()) {
      try {
        python_ = python_executable();
      } catch (const Error&) {
        return;  // no Python to start: charts are drawn in this process, which says why
      }
    }
    while (threads_.size() < n) threads_.emplace_back([this] { work(); });
  }

  bool has_workers() {
    std::lock_guard<std::mutex> lock(m_);
    return !threads_.empty();
  }

  ChartResult submit(std::shared_ptr<Job> job) {
    ChartResult r = job->done.get_future().share();
    {
      std::lock_guard<std::mutex> lock(m_);
      queue_.push_back(std::move(job));
    }
    cv_.notify_one();
    return r;
  }

  std::atomic<size_t> drawn_by_workers{0};

 private:
  bool stopping() {
    std::lock_guard<std::mutex> lock(m_);
    return stopping_;
  }

  std::shared_ptr<Job> next() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return nullptr;
    auto j = queue_.front();
    queue_.pop_front();
    return j;
  }

  /// One worker thread: its process, then charts until the pool stops. A worker that is not
  /// ready (or stops answering) draws its charts in this process instead.
  void work() {
    ChildProcess child;
    bool ready = child.start({python_, "-c", kWorkerPy});
    if (ready) {  // its first line, in short waits so that a pool stopping at exit does not wait for it
      std::optional<std::string> line;
      auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kStartTimeoutS);
      while (!line && !child.at_eof() && !stopping() && std::chrono::steady_clock::now() < deadline)
        line = child.read_line(0.2);
      nlohmann::json j = line ? nlohmann::json::parse(*line, nullptr, false) : nlohmann::json();
      ready = j.is_object() && j.value("ready", false);
    }
    if (!ready) child.kill();
    while (auto job = next()) {
      std::string result;
      bool drawn = false;
      if (ready) {
        nlohmann::json req = {{"kind", job->kind == ChartKind::Roofline ? "roofline" : "sweep"},
                              {"save", chart_save_code()},
                              {"code", chart_code(job->kind)},
                              {"spec", job->spec},
                              {"svg", job->svg},
                              {"png", job->png}};
        std::optional<std::string> reply;
        if (child.write_line(req.dump())) reply = child.read_line(kChartTimeoutS);
        nlohmann::json a = reply ? nlohmann::json::parse(*reply, nullptr, false) : nlohmann::json();
        if (a.is_object() && a.contains("ok")) {
          drawn = true;
          if (!a.value("ok", false))
            result = std::string(chart_name(job->kind)) + " could not be drawn: " + a.value("error", "");
          else
            ++drawn_by_workers;
        } else {
          ready = false;  // it died or hangs: this chart and the next ones are drawn here
          child.kill();
        }
      }
      if (!drawn) {
        adopt_python_thread();  // drawn here, on this thread, in the embedded Python
        result = render_chart(job->kind, job->spec, job->svg, job->png);
      }
      job->done.set_value(result);
    }
    // The pool stops at exit: every chart asked for was written and answered. Ending the worker
    // now spares kprof's exit the wait for its interpreter's own teardown (about 0.2 s with
    // matplotlib loaded, ChildProcess's destructor).
    child.kill();
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::vector<std::thread> threads_;
  std::string python_;
  bool stopping_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void start_chart_workers(size_t workers) { pool().start(workers); }

void stop_chart_workers() { pool().stop(); }

ChartResult draw_chart(ChartKind kind, const std::string& spec_json, const std::string& svg_path,
                       const std::string& png_path) {
  if (!pool().has_workers()) {
    std::promise<std::string> p;
    p.set_value(render_chart(kind, spec_json, svg_path, png_path));
    return p.get_future().share();
  }
  auto job = std::make_shared<Job>();
  job->kind = kind;
  job->spec = spec_json;
  job->svg = svg_path;
  job->png = png_path;
  return pool().submit(std::move(job));
}

size_t charts_drawn_by_workers() { return pool().drawn_by_workers.load(); }

}  // namespace kprof
