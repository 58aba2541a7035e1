"""A test engine for the live tests (test/unit/live-writers.test.ts): replays our engine's recording through
writers/python — its file sink and, when CONTACT_LENS_LIVE is set, the editor. Paced at FPS frames per second
(0: as fast as it can); prints "frame K returned" once write_frame returned, so a test sees where a break
holds the engine.

    python3 replay.py RECORDING OUT.rec.jsonl FPS
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "writers", "python"))
import contact_lens_recorder as cl  # noqa: E402

source, out, fps = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(source, encoding="utf-8") as fh:
    lines = [json.loads(line) for line in fh if line.strip()]
header, frames = lines[0], [x for x in lines[1:] if "frame" in x]
rec = cl.Recorder.create(out, dt=header["dt"], gravity=header["gravity"], bodies=header["bodies"],
                         producer=("contact-lens-python-replay",), solver=header.get("solver"), overwrite=True)
print("streaming", 1 if rec.streaming else 0, flush=True)
t0 = time.monotonic()
for k, f in enumerate(frames):
    if fps > 0:
        delay = t0 + k / fps - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    rec.write_frame(frame=f["frame"], time=f["time"], bodies=f["bodies"], contacts=f["contacts"], solver=f["solver"],
                    pre=f.get("pre"), energy=f.get("energy"))
    print(f"frame {f['frame']} returned", flush=True)
rec.close()
print("closed", flush=True)
