"""Wrong calls of kprof's API: mypy must report an error on every line marked `# wrong`, and on
no other line (tests/typing/run.sh counts them)."""
import kprof

kprof.profile("k.cu", metrics="fast")  # wrong: not one of kprof, sections, full
kprof.profile("k.cu", warmup_msx=50.0)  # wrong: misspelt option
kprof.check("k.cu", "ref.py", nvcc_flags="-O3")  # wrong: a string where a list belongs
kprof.run(["a.cu"], "ref.py", decide_time="wall")  # wrong: not call or kernel
kprof.run(["a.cu"], "ref.py", rounds="many")  # wrong: an int option given a string
kprof.env(gpu="0")  # wrong: the GPU index is an int
kprof.analyze("r.csv", json=True)  # wrong: --json is not a Python option
kprof.run(["a.cu"], "ref.py", sweep="N=1..8")  # wrong: a string where a list belongs
kprof.compare(["a", "b"], output="x")  # wrong: compare's folder is output_dir=
