"""Does the SM clock hold over back-to-back calls? A cuBLAS fp16 GEMM timed over back-to-back
calls (CUDA events) with NVML sampled in a thread DURING the calls (SM clock, power, clock-event
reasons), against the same GEMM's single call under ncu (run separately: see tests/gpu/run.sh
stage `clocks`). Prints one JSON object. Usage: python3 bench/gemm_clocks.py [N] [calls]"""
import json, sys, threading, time
import torch
import pynvml as nv

n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 100
a = torch.randn(n, n, device="cuda", dtype=torch.float16)
b = torch.randn(n, n, device="cuda", dtype=torch.float16)
c = torch.empty(n, n, device="cuda", dtype=torch.float16)
nv.nvmlInit()
h = nv.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
samples, stop = [], threading.Event()

def sample():
    while not stop.is_set():
        try:
            reasons = nv.nvmlDeviceGetCurrentClocksEventReasons(h)
        except Exception:
            reasons = nv.nvmlDeviceGetCurrentClocksThrottleReasons(h)
        samples.append((time.perf_counter(), nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
                        nv.nvmlDeviceGetPowerUsage(h) / 1000.0, reasons,
                        nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)))
        time.sleep(0.002)

for _ in range(10):
    torch.matmul(a, b, out=c)
torch.cuda.synchronize()
t = threading.Thread(target=sample); t.start()
ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(calls)]
for s, e in ev:
    s.record(); torch.matmul(a, b, out=c); e.record()
torch.cuda.synchronize()
stop.set(); t.join()
ms = sorted(s.elapsed_time(e) for s, e in ev)
clk = [x[1] for x in samples]; pw = [x[2] for x in samples]
reasons = {}
for x in samples:
    reasons[hex(x[3])] = reasons.get(hex(x[3]), 0) + 1
print(json.dumps({"n": n, "calls": calls, "median_ms": ms[len(ms) // 2], "min_ms": ms[0], "max_ms": ms[-1],
                  "first10_ms": [round(s.elapsed_time(e), 4) for s, e in ev[:10]],
                  "last10_ms": [round(s.elapsed_time(e), 4) for s, e in ev[-10:]],
                  "sm_clock_mhz": {"min": min(clk), "max": max(clk), "mean": sum(clk) / len(clk)},
                  "power_w": {"min": min(pw), "max": max(pw), "mean": sum(pw) / len(pw)},
                  "power_limit_w": nv.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0,
                  "temp_c": [min(x[4] for x in samples), max(x[4] for x in samples)],
                  "event_reasons": reasons, "samples": len(samples),
                  "tflops": 2 * n ** 3 / (ms[len(ms) // 2] * 1e-3) / 1e12}, indent=1))
