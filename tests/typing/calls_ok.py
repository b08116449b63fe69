"""Right calls of kprof's API: mypy must accept every line (tests/typing/run.sh)."""
import kprof

r: kprof.Report = kprof.env(gpu=1, timeout=30.0)
kprof.check("k.cu", "ref.py", {"N": 1024}, atol=1e-3, trials=3, build=True, nvcc_flags=["-O3"])
kprof.profile("k.cu", {"N": 1024}, metrics="full", warmup_ms=50.0, no_ncu=True, top=5, implementation="cutlass")
kprof.profile("k.py", sizes={"x": "N"}, iters=100, noise_target=1.0, so="k.so")
kprof.run(["v0.cu", "v1.cu"], "ref.py", {"N": 1 << 20}, decide=True, rounds=40, decide_time="kernel",
          ncu_session="per-version", sweep=["N=1Ki..1Mi"], raise_on_failure=True)
kprof.compare(["base/", "new/"], fail_if_slower=5.0, output_dir="cmp")
kprof.analyze("r.ncu-rep", top=3, sass=True, timeout=100.0)
